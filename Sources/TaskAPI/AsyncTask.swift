/// A task: a value of type `Success` that becomes available later, or a failure, or a cancellation.
///
/// Every backend's task type conforms to this protocol; call sites hold `any AsyncTask<Success>`.
/// All members are safe to call from any thread at any time.
///
/// The primitives are `whenComplete(on:_:)`, `wait()`, `wait(timeout:)`, `status` and `completion`.
/// `continueWith`, `continueWithTask` and `value` have defaults written once in TaskAPI
/// (a backend may replace them for speed), and everything else (map, flatMap, recover,
/// finally, timeout, ...) is an extension over these.
///
/// Their defaults are disfavored overloads: a call matching a requirement's form picks the
/// requirement (and so the backend's implementation) at once, without weighing the default as
/// a second candidate, so that chains type-check in time linear in their length (C9.1).
public protocol AsyncTask<Success>: AnyObject, Sendable {
    associatedtype Success: Sendable

    /// The backend that made this task; derived tasks are made by the same backend.
    var backend: any TaskBackend { get }

    /// Where the task is in its life (C1.5). Never blocks; only moves forward.
    var status: TaskStatus { get }

    /// The outcome if the task has completed, `nil` while it is pending or running. Never blocks.
    var completion: Completion<Success>? { get }

    /// Registers `body` to run exactly once on `executor` with the task's outcome (C2.1, C2.5).
    ///
    /// Never blocks. `body` runs only after completion and sees every write made before it (C2.2).
    /// It never runs inside this call, nor inside the call that completes the task, unless
    /// `executor` is the backend's inline executor (C2.3). On the inline executor it runs in
    /// place: registered on a completed task, before this call returns; registered before, inside
    /// the call that completes the task; in both cases queued behind the inline work the calling
    /// thread is already running, if any, and run when that work ends (C2.7). Bodies registered
    /// on one task are handed to their executors in registration order (C2.4).
    func whenComplete(on executor: any AsyncTaskExecutor, _ body: @escaping @Sendable (Completion<Success>) -> Void)

    /// Blocks the calling thread until the task completes, and returns its outcome (C6.1).
    /// Usable as a statement, for its effect (C9.1). Unavailable from async code, as SwiftNIO's
    /// `wait()`: a blocked cooperative thread can starve the work it waits for; there,
    /// `await task.value` suspends instead (C6.5).
    @available(*, noasync, message: "wait() blocks the thread; in async code use 'await task.value'")
    @discardableResult
    func wait() -> Completion<Success>

    /// Blocks until the task completes or `timeout` elapses; `nil` means it timed out (C6.2).
    /// Usable as a statement: a bounded wait for its effect (C9.1).
    @available(*, noasync, message: "wait(timeout:) blocks the thread; in async code use 'await task.value'")
    @discardableResult
    func wait(timeout: Duration) -> Completion<Success>?

    /// Suspends the calling Swift task, without blocking a thread, until this task completes (C6.5).
    ///
    /// Throws the failure's error, or `CancellationError` if this task was cancelled. If the
    /// awaiting Swift task is cancelled, it stops waiting promptly with `CancellationError`;
    /// this task is left alone (C4.7).
    var value: Success { get async throws }

    /// Returns a task that runs `body` on `executor` with this task's outcome, whatever it is,
    /// and completes with what `body` returns or throws (C3.1, C3.2).
    ///
    /// If `token` is cancelled before `body` starts, `body` never runs and the returned task
    /// completes cancelled at once (C4.3).
    @discardableResult
    func continueWith<U: Sendable>(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ body: @escaping @Sendable (Completion<Success>) throws -> U
    ) -> any AsyncTask<U>

    /// Like `continueWith`, for a `body` that returns a task: the returned task completes with
    /// that inner task's outcome (C2.6).
    @discardableResult
    func continueWithTask<U: Sendable>(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ body: @escaping @Sendable (Completion<Success>) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U>

    // Combinators with defaults in TaskAPI (AsyncTask+Combinators.swift), listed here so that a
    // backend can replace them; call sites use the conveniences with optional executors.

    /// Transforms a success; failures and cancellation pass through unchanged (C3.3).
    @discardableResult
    func map<U: Sendable>(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ transform: @escaping @Sendable (Success) throws -> U
    ) -> any AsyncTask<U>

    /// `map` for a transform that keeps the type (`U` is `Success`), answering with the derived
    /// task as `Self` when the backend makes it of this very type, else `nil` (the default, and
    /// the answer for any `U` other than `Success`). The `map` conveniences ask it first, only
    /// once they have checked that `U` is `Success`: they hold `Self`'s conformance, so the task
    /// it returns becomes an `any AsyncTask` with no runtime lookup of a conformance (about 100
    /// instructions of a link). Generic in `U` so that the transform is passed on as it came,
    /// with no conversion (a converted closure is a new value: a retain and a release). A task
    /// it returns has `map(on:token:_:)`'s semantics (C3.3, C4.3); a `nil` makes nothing, and
    /// the caller calls `map(on:token:_:)` instead.
    func mapKeepingType<U: Sendable>(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ transform: @escaping @Sendable (Success) throws -> U
    ) -> Self?

    /// Chains a task-returning step; the result takes the inner task's outcome (C2.6, C3.3).
    @discardableResult
    func flatMap<U: Sendable>(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ transform: @escaping @Sendable (Success) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U>

    /// Turns a failure into a value or another error; success and cancellation pass through (C3.3).
    @discardableResult
    func recover(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ handler: @escaping @Sendable (any Error) throws -> Success
    ) -> any AsyncTask<Success>

    /// Turns a failure into another task's outcome; success and cancellation pass through (C3.3).
    @discardableResult
    func recoverTask(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ handler: @escaping @Sendable (any Error) throws -> any AsyncTask<Success>
    ) -> any AsyncTask<Success>

    /// Runs `body` on every outcome, then passes the outcome on unless `body` throws (C3.3).
    @discardableResult
    func finally(
        on executor: any AsyncTaskExecutor,
        _ body: @escaping @Sendable (Completion<Success>) throws -> Void
    ) -> any AsyncTask<Success>

    /// Like `finally`, waiting for the task `body` returns before passing the outcome on (C3.3).
    @discardableResult
    func finallyTask(
        on executor: any AsyncTaskExecutor,
        _ body: @escaping @Sendable (Completion<Success>) throws -> any AsyncTask<Void>
    ) -> any AsyncTask<Success>

    /// This task's outcome if it arrives within `delay`, else `TaskError.timedOut` (C5.4).
    func timeout(after delay: Duration) -> any AsyncTask<Success>
}

extension AsyncTask {
    /// Blocks until the task completes and returns its value, or throws its error
    /// (`CancellationError` if it was cancelled). FATask's `get`, Swift-Async's `await()`.
    /// Usable as a statement: `try task.get()` waits and rethrows (C9.1).
    @inlinable @discardableResult
    @available(*, noasync, message: "get() blocks the thread; in async code use 'await task.value'")
    public func get() throws -> Success {
        try wait().get()
    }

    /// `true` once the task has completed, whatever its outcome.
    @inlinable
    public var isCompleted: Bool { status == .completed }
}
