import BackendGCD
import Dispatch
import TaskAPI
import Testing

/// TaskAPI's `JobExecutor` (any `AsyncTaskExecutor` as a Swift `TaskExecutor`, what `runAsync`
/// prefers by default and what the conformance harness passes) over an executor that runs every
/// job twice, a C7.3 breach: each Swift job still runs once, so the body completes its task and
/// the process survives to report the breach (a Swift job run twice is undefined behaviour: the
/// reference backend's `defaultRunsJobTwice` crashed the mutant tests through it).
@Suite struct JobExecutorTests {
    /// Runs each job twice, on Dispatch's global queue.
    final class TwiceExecutor: AsyncTaskExecutor {
        func execute(_ job: @escaping @Sendable () -> Void) {
            DispatchQueue.global().async {
                job()
                job()
            }
        }
    }

    @Test("C7.3: an executor that runs each job twice runs no Swift job twice through JobExecutor")
    func aJobRunTwiceRunsTheSwiftJobOnce() {
        let backend = GCDBackend()
        let executor = JobExecutor(TwiceExecutor())
        let tasks = (0..<50).map { i in
            backend.runAsync(token: .none, preferring: executor) {
                await Task.yield()
                return i
            }
        }
        for (i, task) in tasks.enumerated() {
            guard case .success(let value)? = task.wait(timeout: .seconds(10)) else {
                Issue.record("task \(i) did not succeed")
                continue
            }
            #expect(value == i)
        }
    }
}
