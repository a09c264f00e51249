/// The `run` conveniences (C9.1, C9.5): an optional executor (`nil`: the default executor), a
/// token that defaults to `.none`, bodies with or without the token, and bodies returning a task,
/// which are unwrapped. Each forwards to the `run(on:token:_:)` requirement or to
/// `continueWithTask`, so a backend's override is used.
extension TaskBackend {
    /// Starts `body` at once on `executor` (default: the default executor); see
    /// `run(on:token:_:)`. Disfavored, so that a body returning a task picks the unwrapping
    /// overload (C9.5).
    @inlinable @_disfavoredOverload
    public func run<T: Sendable>(
        on executor: (any Executor)? = nil,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (CancellationToken) throws -> T
    ) -> any AsyncTask<T> {
        run(on: executor ?? defaultExecutor, token: token, body)
    }

    /// Starts a body that takes no token (Swift-Async's `Async<T> { expr }`): `backend.run { 40 }`.
    /// Same rules as `run(on:token:_:)`: a `token` cancelled before the body starts cancels the task
    /// and the body never runs (C4.3).
    @inlinable @_disfavoredOverload
    public func run<T: Sendable>(
        on executor: (any Executor)? = nil,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable () throws -> T
    ) -> any AsyncTask<T> {
        run(on: executor ?? defaultExecutor, token: token) { _ in try body() }
    }

    /// Starts a body that returns a task, and unwraps it: the result completes with that task's
    /// outcome (C9.5, as C2.6). The body runs on `executor` (default: the default executor); a
    /// `token` cancelled before it starts cancels the result and the body never runs (C4.3).
    @inlinable
    public func run<T: Sendable>(
        on executor: (any Executor)? = nil,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (CancellationToken) throws -> any AsyncTask<T>
    ) -> any AsyncTask<T> {
        let start: any AsyncTask<Void> = completed(.success(()))
        return start.continueWithTask(on: executor ?? defaultExecutor, token: token) { _ in try body(token) }
    }

    /// `run` for a body that takes no token and returns a task, unwrapped (C9.5).
    @inlinable
    public func run<T: Sendable>(
        on executor: (any Executor)? = nil,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable () throws -> any AsyncTask<T>
    ) -> any AsyncTask<T> {
        run(on: executor, token: token) { (_: CancellationToken) in try body() }
    }
}
