import Dispatch
import ScheduleKit
import Synchronization
import TaskAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        /// Every 50th job goes to the parallel default queue at once: it may run beside the
        /// others (C7.2).
        case oneInFiftyParallel
    }

    /// How long `blocksOutsideWait` blocks: beyond every phase MutantTests' 5 s watchdog times
    /// (drivers, phase one, the rest: 15 s), so that the run is given up before the job runs, and
    /// bounded, so that the thread comes back afterwards.
    static let blockTime: DispatchTimeInterval = .seconds(20)

    private let queue: DispatchQueue
    private let fault: Fault
    private let count = Atomic(0)
    private let marker = JobMarker()

    init(label: String, fault: Fault) {
        queue = DispatchQueue(label: label)
        self.fault = fault
    }

    /// Right, whatever the fault (C9.7): inside its jobs, wherever they run.
    var isCurrent: Bool { marker.isInside }

    func execute(_ job: @escaping @Sendable () -> Void) {
        let n = count.add(1, ordering: .relaxed).newValue
        let job = marker.marking(job)
        switch fault {
        case .runsTwice:
            queue.async {
                job(); job()
            }
        case .dropsJobs:
            if n % 3 != 0 { queue.async(execute: job) }
        case .reentrant:
            job()
        case .oneInFiftyParallel:
            if n % 50 == 0 { DispatchQueue.global().async(execute: job) } else { queue.async(execute: job) }
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
        case .serialOneInFiftyParallel: return .oneInFiftyParallel
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
    private let marker = JobMarker()

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    var isCurrent: Bool { marker.isInside }

    func execute(_ job: @escaping @Sendable () -> Void) {
        let job = marker.marking(job)
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

/// `.serialRingReordersOnGrowth`: a serial executor on a Dispatch queue that keeps its waiting
/// jobs in a ring buffer, as BackendKit's `JobRing` does. Growing a full ring whose jobs wrap
/// around its end, the faulty version copies the slots in index order instead of from the head:
/// the jobs behind the wrap then run before the older ones. Correct with `reordersWhenGrowingWrapped`
/// false; only a burst queued after earlier jobs moved the head shows the fault.
final class RingSerialExecutor: Executor {
    private struct Ring {
        var slots: [(@Sendable () -> Void)?] = Array(repeating: nil, count: 16)
        var head = 0
        var count = 0
        var draining = false
    }

    private let queue: DispatchQueue
    private let reorders: Bool
    private let state = Locked(Ring())
    private let marker = JobMarker()

    init(label: String, reordersWhenGrowingWrapped: Bool) {
        queue = DispatchQueue(label: label)
        reorders = reordersWhenGrowingWrapped
    }

    var isCurrent: Bool { marker.isInside }

    func execute(_ job: @escaping @Sendable () -> Void) {
        let job = marker.marking(job)
        let reorders = self.reorders
        let start = state.withLock { ring -> Bool in
            if ring.count == ring.slots.count {
                let capacity = ring.slots.count
                let order = reorders ? Array(0..<capacity) : (0..<capacity).map { (ring.head + $0) % capacity }
                ring.slots = order.map { ring.slots[$0] } + Array(repeating: nil, count: capacity)
                ring.head = 0
            }
            ring.slots[(ring.head + ring.count) % ring.slots.count] = job
            ring.count += 1
            if ring.draining { return false }
            ring.draining = true
            return true
        }
        if start { queue.async { self.drain() } }
    }

    private func drain() {
        while let job = state.withLock({ ring -> (@Sendable () -> Void)? in
            guard ring.count > 0 else {
                ring.draining = false
                return nil
            }
            defer {
                ring.slots[ring.head] = nil
                ring.head = (ring.head + 1) % ring.slots.count
                ring.count -= 1
            }
            return ring.slots[ring.head]
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

    var isCurrent: Bool { base.isCurrent }

    func execute(_ job: @escaping @Sendable () -> Void) {
        let n = count.add(1, ordering: .relaxed).newValue
        switch fault {
        case .runsEvery16thTwice where n % 16 == 0:
            base.execute {
                job(); job()
            }
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

/// Marks the thread while it runs a job of one executor, for that executor's `isCurrent` (C9.7):
/// a thread-local set of the executors whose jobs it is running.
final class JobMarker: Sendable {
    var isInside: Bool { JobMarker.running.contains(ObjectIdentifier(self)) }

    /// `job`, marking the thread as inside this executor's job while it runs.
    func marking(_ job: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let id = ObjectIdentifier(self)
        return {
            let outer = JobMarker.running
            JobMarker.running.insert(id)
            defer { JobMarker.running = outer }
            job()
        }
    }

    /// The executors whose jobs the calling thread runs (a Swift thread-local, by pthread key).
    private static var running: Set<ObjectIdentifier> {
        get { pthread_getspecific(runningKey).map { Unmanaged<Box>.fromOpaque($0).takeUnretainedValue().ids } ?? [] }
        set {
            if let pointer = pthread_getspecific(runningKey) {
                Unmanaged<Box>.fromOpaque(pointer).takeUnretainedValue().ids = newValue
            } else {
                pthread_setspecific(runningKey, Unmanaged.passRetained(Box(newValue)).toOpaque())
            }
        }
    }

    /// One thread's set; only that thread touches it.
    private final class Box {
        var ids: Set<ObjectIdentifier>
        init(_ ids: Set<ObjectIdentifier>) { self.ids = ids }
    }

    private static let runningKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<Box>.fromOpaque(pointer).release()
        }
        return key
    }()
}
