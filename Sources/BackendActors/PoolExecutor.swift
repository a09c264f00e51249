import BackendKit
import TaskAPI

/// The default executor (C7.2): a `TaskExecutor` on the kit's `ThreadPool`, threads of its own
/// that it can grow.
///
/// It runs two kinds of work from the pool's one FIFO queue: closures handed to `execute` (bodies
/// and continuations), and Swift jobs of tasks started with `Task(executorPreference:)` (timers,
/// `runAsync`). It keeps as many threads busy as there are cores (at least two). A worker that
/// blocks in `wait()` reports it, and while it is blocked the pool may start another thread, so
/// blocking waits nested in bodies never starve the pool (C6.4). Swift's cooperative pool is never
/// blocked by this backend.
///
/// This object is the pool's handle: backends, mailboxes, tasks waiting to hand over to it and
/// queued Swift jobs hold it; the threads hold only the pool. When the last handle goes, the pool
/// stops: its workers run what is queued and exit (the shared pool lives as long as the process).
final class PoolExecutor: KitQueueExecutor, TaskExecutor, @unchecked Sendable {
    // @unchecked: restated from `KitQueueExecutor`; every property is a `let` of a Sendable type.
    /// The threads, the queue and the blocking accounting.
    let pool: ThreadPool

    /// The pool every `ActorsBackend()` shares.
    static let shared = PoolExecutor(limit: BlockingThreads.defaultLimit)

    init(width: Int = max(2, NativeThread.processorCount), limit: Int) {
        pool = ThreadPool(name: "actors", workers: width, maxBlockedThreads: limit)
        super.init(runner: pool)
    }

    deinit {
        pool.stop()
    }

    /// The most threads started at once beyond the core count for blocked workers.
    var limit: Int { pool.limit }

    override func push(_ job: consuming JobRing.Slot) {
        pool.push(job)
    }

    /// A Swift job (a task started with this pool as its preferred executor) in a closure: one
    /// allocation, where the closures of `execute` (every body and continuation) need none. The
    /// closure holds this handle until the job has run.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pool.push { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
    }
}
