import BackendKit
import TaskAPI

/// A serial executor is also a Swift `SerialExecutor` (C9.9): an actor whose `unownedExecutor`
/// it is runs its jobs one at a time on the pool, and `assumeIsolated` works inside them, since
/// `isIsolatingCurrentContext` answers from the thread's recorded isolation
/// (`ThreadRuntime.isolation`, set by the drain). Swift jobs are plain jobs of the executor's
/// FIFO: no Dispatch and no other executor is involved.
extension ThreadsSerialExecutor: SerialExecutor {
    /// `true` inside a job this executor is running (C9.7).
    var isCurrent: Bool { ThreadRuntime.current.isolation === self }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        execute { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    func isIsolatingCurrentContext() -> Bool? {
        isCurrent
    }
}
