import Dispatch
import Synchronization
import TaskAPI

/// A serial executor with a fault users' executors have been seen to have (issue #14, point 6):
/// the reference backend hands it out from `makeSerialExecutor` for the fault mutations. The
/// harness must survive each and end in a finding with a rule and a replay line, never a hang.
final class FaultySerialExecutor: Executor {
    enum Fault: Sendable {
        /// Every job runs twice (C7.3).
        case runsTwice
        /// Every third job is dropped, never run (C7.3; the job's source is released: C8.3).
        case dropsJobs
        /// Jobs run synchronously inside `execute`, on the caller's thread (C2.3, C7.2).
        case reentrant
        /// The first job blocks its thread outside `wait()` for longer than the watchdog's limit,
        /// on a semaphore the backend cannot see.
        case blocksOutsideWait
    }

    /// How long `blocksOutsideWait` blocks: beyond every phase MutantTests' 5 s watchdog times
    /// (drivers, phase one, the rest: 15 s), so that the run is given up before the job runs, and
    /// bounded, so that the thread comes back afterwards.
    static let blockTime: DispatchTimeInterval = .seconds(20)

    private let queue: DispatchQueue
    private let fault: Fault
    private let count = Atomic(0)

    init(label: String, fault: Fault) {
        queue = DispatchQueue(label: label)
        self.fault = fault
    }

    func execute(_ job: @escaping @Sendable () -> Void) {
        let n = count.add(1, ordering: .relaxed).newValue
        switch fault {
        case .runsTwice:
            queue.async { job(); job() }
        case .dropsJobs:
            if n % 3 != 0 { queue.async(execute: job) }
        case .reentrant:
            job()
        case .blocksOutsideWait:
            queue.async {
                if n == 1 { _ = DispatchSemaphore(value: 0).wait(timeout: .now() + Self.blockTime) }
                job()
            }
        }
    }
}

extension Mutation {
    /// The faulty serial executor this mutation hands out, if any.
    var serialFault: FaultySerialExecutor.Fault? {
        switch self {
        case .serialRunsJobsTwice: return .runsTwice
        case .serialDropsJobs: return .dropsJobs
        case .serialRunsReentrantly: return .reentrant
        case .serialJobBlocksOutsideWait: return .blocksOutsideWait
        default: return nil
        }
    }
}

/// `.serialReordersBacklog`: a serial executor on a Dispatch queue that keeps its own backlog and,
/// when two or more jobs wait, runs the newest first. One job at a time, each exactly once: only
/// the order is wrong, and only with a backlog.
final class BacklogReorderingExecutor: Executor {
    private let queue: DispatchQueue
    private let state = Locked((jobs: [@Sendable () -> Void](), draining: false))

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func execute(_ job: @escaping @Sendable () -> Void) {
        let start = state.withLock { state -> Bool in
            state.jobs.append(job)
            if state.draining { return false }
            state.draining = true
            return true
        }
        if start { queue.async { self.drain() } }
    }

    private func drain() {
        while let job = state.withLock({ state -> (@Sendable () -> Void)? in
            if state.jobs.isEmpty { state.draining = false; return nil }
            return state.jobs.count >= 2 ? state.jobs.removeLast() : state.jobs.removeFirst()
        }) {
            job()
        }
    }
}

/// A default executor with a rare fault, counted over the jobs handed to it: the state a backend
/// keeps across programs, which only a fresh backend per program (`check(makeBackend:)`) lets a
/// replay line reproduce.
final class FaultyDefaultExecutor: Executor {
    enum Fault: Sendable {
        /// Every 16th job runs twice.
        case runsEvery16thTwice
        /// Every 24th job is dropped.
        case dropsEvery24th
    }

    private let base: ReferenceQueueExecutor
    private let fault: Fault
    private let count = Atomic(0)

    init(base: ReferenceQueueExecutor, fault: Fault) {
        self.base = base
        self.fault = fault
    }

    func execute(_ job: @escaping @Sendable () -> Void) {
        let n = count.add(1, ordering: .relaxed).newValue
        switch fault {
        case .runsEvery16thTwice where n % 16 == 0:
            base.execute { job(); job() }
        case .dropsEvery24th where n % 24 == 0:
            return
        default:
            base.execute(job)
        }
    }
}

extension Mutation {
    /// The faulty default executor this mutation has, if any.
    var defaultFault: FaultyDefaultExecutor.Fault? {
        switch self {
        case .defaultRunsJobTwice: return .runsEvery16thTwice
        case .defaultDropsJob: return .dropsEvery24th
        default: return nil
        }
    }
}
