import TaskAPI

/// The contract on Swift concurrency.
///
/// - Task state: each task is an `actor` (`ActorTask`) whose continuation list is a
///   `TaskStateMachine`; its executor is a lock-free FIFO `Mailbox` (a custom `SerialExecutor`),
///   which keeps registration order (C2.4). Only the winner flag, the status and the published
///   outcome live outside the actor, because the contract answers them synchronously.
/// - Default executor: a `TaskExecutor` with threads of its own that grows while its workers
///   block in `wait()` (C6.4); Swift's cooperative pool is never blocked.
/// - Serial executors: `Mailbox`es, which are `SerialExecutor`s: usable as an actor's executor.
/// - Inline executor: the calling thread, through a per-thread trampoline (C2.7).
/// - Timers: `Task.sleep` in a Swift task on the default executor; disposing cancels it.
/// - `await task.value`: a Swift continuation resumed by the task's actor (C6.5, C4.7).
/// - Main executor: the main actor (TaskAPI's `MainActorExecutor`, C9.8).
public final class ActorsBackend: TaskBackend {
    public let name = "actors"
    let pool: WorkerPool
    private let inline = ActorsInlineExecutor()

    /// A backend; every instance shares one worker pool.
    public init() {
        pool = WorkerPool.shared
    }

    /// A backend shared by everyone who needs just one.
    public static let shared = ActorsBackend()

    public var defaultExecutor: any Executor { pool }
    public var inlineExecutor: any Executor { inline }

    /// The default executor as a Swift `TaskExecutor`, for `Task(executorPreference:)`.
    public var taskExecutor: any TaskExecutor { pool }

    /// A new serial executor: FIFO, one job at a time, on the default executor's threads. It is
    /// also a Swift `SerialExecutor`, so an actor can use it as its executor.
    public func makeSerialExecutor(label: String) -> any Executor {
        Mailbox(pool: pool, ownsTask: false)
    }

    public func makeSource<T: Sendable>(of type: T.Type) -> any CompletionSource<T> {
        ActorTask<T>(owner: self)
    }

    public func completed<T: Sendable>(_ completion: Completion<T>) -> any AsyncTask<T> {
        ActorTask<T>(owner: self, completed: completion)
    }

    public func makeCancellationSource() -> any CancellationSource {
        StandardCancellationSource { [self] delay, job in schedule(after: delay, job) }
    }

    public func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable {
        ActorsTimer(after: delay, on: pool, job)
    }
}
