/// The writing side of a task (Bolts' TaskCompletionSource, a promise's resolve/reject).
///
/// Exactly one completing call ever wins (C1.2): of any number of racing `try` setters, exactly
/// one returns `true`, and its outcome is the task's. Setters are safe from any thread.
public protocol CompletionSource<Success>: AnyObject, Sendable {
    associatedtype Success: Sendable

    /// The task this source completes. Always the same task.
    var task: any AsyncTask<Success> { get }

    /// Completes the task with `completion` if it is not completed yet.
    /// Returns `true` if this call completed it, `false` if it was already completed (C1.2).
    @discardableResult
    func tryComplete(_ completion: Completion<Success>) -> Bool

    /// Completes the task with `value` if it is not completed yet: exactly
    /// `tryComplete(.success(value))`, which is its default. `true` if this call completed it,
    /// `false` if it was already completed (C1.2).
    ///
    /// A requirement so that a call through `any CompletionSource<T>` reaches the source's own
    /// implementation: the default runs unspecialized there, and builds a `Completion<Success>`,
    /// which costs generic code a runtime metadata lookup before the source sees the value. A
    /// source that can store a value directly implements it (BackendKit's sources do).
    @discardableResult
    func trySucceed(_ value: Success) -> Bool

    /// Moves the task's status from pending to running (C1.5), for algorithms that run a body on
    /// the task's behalf. Returns `false`, changing nothing, if the task is not pending.
    @discardableResult
    func tryStart() -> Bool
}

extension CompletionSource {
    /// Completes with `value` unless already completed; `true` if this call won (C1.2). The
    /// requirement's default: `tryComplete(.success(value))`.
    @inlinable @discardableResult
    public func trySucceed(_ value: Success) -> Bool { tryComplete(.success(value)) }

    /// Completes with `error` unless already completed; `true` if this call won (C1.2).
    /// The error is stored as given, a `CancellationError` included.
    @inlinable @discardableResult
    public func tryFail(_ error: any Error) -> Bool { tryComplete(.failure(error)) }

    /// Completes as cancelled unless already completed; `true` if this call won (C1.2).
    @inlinable @discardableResult
    public func tryCancel() -> Bool { tryComplete(.cancelled) }

    /// Completes with `completion`, or throws `TaskError.alreadyCompleted` and changes nothing (C1.3).
    @inlinable
    public func complete(_ completion: Completion<Success>) throws {
        guard tryComplete(completion) else { throw TaskError.alreadyCompleted }
    }

    /// Completes with `value`, or throws `TaskError.alreadyCompleted` and changes nothing (C1.3).
    @inlinable
    public func succeed(_ value: Success) throws { try complete(.success(value)) }

    /// Completes with `error`, or throws `TaskError.alreadyCompleted` and changes nothing (C1.3).
    @inlinable
    public func fail(_ error: any Error) throws { try complete(.failure(error)) }

    /// Completes as cancelled, or throws `TaskError.alreadyCompleted` and changes nothing (C1.3).
    @inlinable
    public func cancel() throws { try complete(.cancelled) }
}

extension CompletionSource where Success == Void {
    /// `trySucceed(())`.
    @inlinable @discardableResult
    public func trySucceed() -> Bool { trySucceed(()) }

    @inlinable
    public func succeed() throws { try complete(.success(())) }
}
