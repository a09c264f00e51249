import Foundation

/// A task executor with one thread of its own: the harness runs its `await` operations on it,
/// and tests may too (`Task(executorPreference: AwaitExecutor.shared) { ... }`).
///
/// Swift Testing runs synchronous tests on the cooperative pool (two threads on a 2-core machine)
/// and those tests block in `wait()`; an `await` resumed on that pool could then wait far longer
/// than the watchdog allows, and be reported as a hang (C6.5) that is the test runner's, not the
/// backend's. Awaiting on this executor keeps the check independent of whatever else the process
/// runs; it still proves that an await blocks no thread (64 awaits share one).
public final class AwaitExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` is only touched with `condition` locked.
    /// The one instance; its thread lives as long as the process.
    public static let shared = AwaitExecutor()

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    private init() {
        let thread = Thread { [unowned self] in self.loop() }
        thread.name = "Conformance.await"
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}
