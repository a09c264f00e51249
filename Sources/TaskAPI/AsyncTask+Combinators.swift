/// Value-level continuations (C3.3): the defaults of the `AsyncTask` requirements, each a thin
/// layer over `continueWith`/`continueWithTask`, then the conveniences call sites use.
///
/// Failure and cancellation pass through `map`/`flatMap`/`then` unchanged; `recover` and `catch`
/// see only failures; `finally` sees every outcome.
extension AsyncTask {
    public func map<U: Sendable>(
        on executor: any Executor,
        token: CancellationToken,
        _ transform: @escaping @Sendable (Success) throws -> U
    ) -> any AsyncTask<U> {
        continueWith(on: executor, token: token) { completion in
            try transform(completion.get())
        }
    }

    public func flatMap<U: Sendable>(
        on executor: any Executor,
        token: CancellationToken,
        _ transform: @escaping @Sendable (Success) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        continueWithTask(on: executor, token: token) { completion in
            try transform(completion.get())
        }
    }

    public func recover(
        on executor: any Executor,
        token: CancellationToken,
        _ handler: @escaping @Sendable (any Error) throws -> Success
    ) -> any AsyncTask<Success> {
        continueWith(on: executor, token: token) { completion in
            if case .failure(let error) = completion { return try handler(error) }
            return try completion.get()
        }
    }

    public func recover(
        on executor: any Executor,
        token: CancellationToken,
        _ handler: @escaping @Sendable (any Error) throws -> any AsyncTask<Success>
    ) -> any AsyncTask<Success> {
        let backend = self.backend
        return continueWithTask(on: executor, token: token) { completion in
            if case .failure(let error) = completion { return try handler(error) }
            return backend.completed(completion)
        }
    }

    public func finally(
        on executor: any Executor,
        _ body: @escaping @Sendable (Completion<Success>) throws -> Void
    ) -> any AsyncTask<Success> {
        continueWith(on: executor, token: .none) { completion in
            try body(completion)
            return try completion.get()
        }
    }

    public func finallyTask(
        on executor: any Executor,
        _ body: @escaping @Sendable (Completion<Success>) throws -> any AsyncTask<Void>
    ) -> any AsyncTask<Success> {
        let inline = backend.inlineExecutor
        return continueWithTask(on: executor, token: .none) { completion in
            try body(completion).continueWith(on: inline, token: .none) { done in
                try done.get()
                return try completion.get()
            }
        }
    }
}

/// The conveniences: an optional executor (`nil`: the backend's default executor) and a token
/// that defaults to `.none`. Each forwards to the requirement, so a backend's override is used.
extension AsyncTask {
    /// Transforms a success; failures and cancellation pass through unchanged (C3.3).
    @inlinable
    public func map<U: Sendable>(
        on executor: (any Executor)? = nil,
        token: CancellationToken = .none,
        _ transform: @escaping @Sendable (Success) throws -> U
    ) -> any AsyncTask<U> {
        map(on: executor ?? backend.defaultExecutor, token: token, transform)
    }

    /// Chains a task-returning step; the result takes the inner task's outcome (C2.6, C3.3).
    @inlinable
    public func flatMap<U: Sendable>(
        on executor: (any Executor)? = nil,
        token: CancellationToken = .none,
        _ transform: @escaping @Sendable (Success) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        flatMap(on: executor ?? backend.defaultExecutor, token: token, transform)
    }

    /// JS-style `then` returning a value: the same as `map`. Disfavored, so that a closure
    /// returning a task picks the unwrapping overload below (C2.6).
    @inlinable @_disfavoredOverload
    public func then<U: Sendable>(
        on executor: (any Executor)? = nil,
        token: CancellationToken = .none,
        _ transform: @escaping @Sendable (Success) throws -> U
    ) -> any AsyncTask<U> {
        map(on: executor ?? backend.defaultExecutor, token: token, transform)
    }

    /// JS-style `then` returning a task: the same as `flatMap`.
    @inlinable
    public func then<U: Sendable>(
        on executor: (any Executor)? = nil,
        token: CancellationToken = .none,
        _ transform: @escaping @Sendable (Success) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        flatMap(on: executor ?? backend.defaultExecutor, token: token, transform)
    }

    /// Turns a failure into a value (or another error); success and cancellation pass through (C3.3).
    @inlinable
    public func recover(
        on executor: (any Executor)? = nil,
        token: CancellationToken = .none,
        _ handler: @escaping @Sendable (any Error) throws -> Success
    ) -> any AsyncTask<Success> {
        recover(on: executor ?? backend.defaultExecutor, token: token, handler)
    }

    /// Turns a failure into another task's outcome; success and cancellation pass through (C3.3).
    @inlinable
    public func recover(
        on executor: (any Executor)? = nil,
        token: CancellationToken = .none,
        _ handler: @escaping @Sendable (any Error) throws -> any AsyncTask<Success>
    ) -> any AsyncTask<Success> {
        recover(on: executor ?? backend.defaultExecutor, token: token, handler)
    }

    /// JS-style `catch` returning a value: the same as `recover`.
    @inlinable
    public func `catch`(
        on executor: (any Executor)? = nil,
        token: CancellationToken = .none,
        _ handler: @escaping @Sendable (any Error) throws -> Success
    ) -> any AsyncTask<Success> {
        recover(on: executor ?? backend.defaultExecutor, token: token, handler)
    }

    /// JS-style `catch` returning a task: the same as `recover` with a task.
    @inlinable
    public func `catch`(
        on executor: (any Executor)? = nil,
        token: CancellationToken = .none,
        _ handler: @escaping @Sendable (any Error) throws -> any AsyncTask<Success>
    ) -> any AsyncTask<Success> {
        recover(on: executor ?? backend.defaultExecutor, token: token, handler)
    }

    /// Runs `body` on every outcome, then passes the original outcome on, unless `body` throws:
    /// then its error (or cancellation, for `CancellationError`) replaces the outcome (C3.3).
    @inlinable
    public func finally(
        on executor: (any Executor)? = nil,
        _ body: @escaping @Sendable (Completion<Success>) throws -> Void
    ) -> any AsyncTask<Success> {
        finally(on: executor ?? backend.defaultExecutor, body)
    }

    /// HNTask's `finally` returning a task (named like `continueWithTask`): the result completes
    /// once that task has, with the original outcome, unless that task failed or was cancelled:
    /// then with its outcome (C3.3).
    @inlinable
    public func finallyTask(
        on executor: (any Executor)? = nil,
        _ body: @escaping @Sendable (Completion<Success>) throws -> any AsyncTask<Void>
    ) -> any AsyncTask<Success> {
        finallyTask(on: executor ?? backend.defaultExecutor, body)
    }

    /// A task that succeeds with `()` when this one succeeds: for joining tasks of mixed types.
    @inlinable
    public func asVoid() -> any AsyncTask<Void> {
        map(on: backend.inlineExecutor, token: .none) { _ in () }
    }
}
