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
