/// The `run` conveniences (C9.1, C9.5): the executor left out (the default executor) or named, the
/// token left out (`.none`) or named, bodies with or without the token. A body of `run` returns a
/// value; a body of `runTask` returns a task, whose outcome the result takes (C9.5, as C2.6).
/// Each call form has exactly one candidate (C9.1); on the main executor the body is `@MainActor`
/// (C9.10). Each forwards to the `run(on:token:_:)` requirement or to `continueWithTask`, so a
/// backend's override is used.
extension TaskBackend {
    /// Starts `body` at once on `executor` (default: the default executor); see
    /// `run(on:token:_:)`. The body returns the value; a body returning a task is `runTask`,
    /// and where a task of the value is expected the compiler says so (C2.6, C9.5).
    @inlinable
    @discardableResult
    public func run<T: Sendable>(
        on executor: (any AsyncTaskExecutor)? = nil,
        _ body: @escaping @Sendable (CancellationToken) throws -> T
    ) -> any AsyncTask<T> {
        run(on: executor ?? defaultExecutor, token: .none, body)
    }

    /// Starts `body` at once on the default executor under `token`; see `run(on:token:_:)`.
    @inlinable
    @discardableResult
    public func run<T: Sendable>(
        token: CancellationToken,
        _ body: @escaping @Sendable (CancellationToken) throws -> T
    ) -> any AsyncTask<T> {
        run(on: defaultExecutor, token: token, body)
    }

    /// Starts a body that takes no token (Swift-Async's `Async<T> { expr }`): `backend.run { 40 }`,
    /// on `executor` (default: the default executor).
    @inlinable
    @discardableResult
    public func run<T: Sendable>(
        on executor: (any AsyncTaskExecutor)? = nil,
        _ body: @escaping @Sendable () throws -> T
    ) -> any AsyncTask<T> {
        run(on: executor ?? defaultExecutor, token: .none) { _ in try body() }
    }

    /// Starts a body that takes no token on the default executor; a `token` cancelled before the
    /// body starts cancels the task and the body never runs (C4.3).
    @inlinable
    @discardableResult
    public func run<T: Sendable>(
        token: CancellationToken,
        _ body: @escaping @Sendable () throws -> T
    ) -> any AsyncTask<T> {
        run(on: defaultExecutor, token: token) { _ in try body() }
    }

    /// Starts a body that takes no token on `executor` under `token` (C4.3).
    @inlinable
    @discardableResult
    public func run<T: Sendable>(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ body: @escaping @Sendable () throws -> T
    ) -> any AsyncTask<T> {
        run(on: executor, token: token) { _ in try body() }
    }

    /// Starts a body that returns a task, and unwraps it: the result completes with that task's
    /// outcome (C9.5, as C2.6). The body runs on `executor` (default: the default executor); a
    /// `token` cancelled before it starts cancels the result and the body never runs (C4.3).
    @inlinable
    @discardableResult
    public func runTask<T: Sendable>(
        on executor: (any AsyncTaskExecutor)? = nil,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (CancellationToken) throws -> any AsyncTask<T>
    ) -> any AsyncTask<T> {
        let start: any AsyncTask<Void> = completed(.success(()))
        return start.continueWithTask(on: executor ?? defaultExecutor, token: token) { _ in try body(token) }
    }

    /// `runTask` for a body that takes no token (C9.5).
    @inlinable
    @discardableResult
    public func runTask<T: Sendable>(
        on executor: (any AsyncTaskExecutor)? = nil,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable () throws -> any AsyncTask<T>
    ) -> any AsyncTask<T> {
        runTask(on: executor, token: token) { (_: CancellationToken) in try body() }
    }

    @available(*, unavailable, message: "the body returns a task: use runTask, which unwraps it (C9.5)")
    public func run<T: Sendable>(
        on executor: (any AsyncTaskExecutor)? = nil,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (CancellationToken) throws -> any AsyncTask<T>
    ) -> any AsyncTask<T> {
        runTask(on: executor, token: token, body)
    }

    @available(*, unavailable, message: "the body returns a task: use runTask, which unwraps it (C9.5)")
    public func run<T: Sendable>(
        on executor: (any AsyncTaskExecutor)? = nil,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable () throws -> any AsyncTask<T>
    ) -> any AsyncTask<T> {
        runTask(on: executor, token: token, body)
    }
}

/// `run` and `runTask` on the main executor, with a `@MainActor` body (C9.10): FATask's
/// `startMainThreadTaskWithBlock:` touching main-actor state.
extension TaskBackend {
    /// `run(on:token:_:)` on the main executor, with a `@MainActor` body (C9.10).
    @inlinable
    @discardableResult
    public func run<T: Sendable>(
        on executor: MainExecutor,
        token: CancellationToken = .none,
        _ body: @escaping @MainActor @Sendable (CancellationToken) throws -> T
    ) -> any AsyncTask<T> {
        run(on: executor.executor, token: token, executor.isolating(body))
    }

    /// `run` on the main executor with a `@MainActor` body that takes no token (C9.10).
    @inlinable
    @discardableResult
    public func run<T: Sendable>(
        on executor: MainExecutor,
        token: CancellationToken = .none,
        _ body: @escaping @MainActor @Sendable () throws -> T
    ) -> any AsyncTask<T> {
        run(on: executor.executor, token: token, executor.isolating { (_: CancellationToken) in try body() })
    }

    /// `runTask` on the main executor, with a `@MainActor` body (C9.5, C9.10).
    @inlinable
    @discardableResult
    public func runTask<T: Sendable>(
        on executor: MainExecutor,
        token: CancellationToken = .none,
        _ body: @escaping @MainActor @Sendable (CancellationToken) throws -> any AsyncTask<T>
    ) -> any AsyncTask<T> {
        runTask(on: executor.executor, token: token, executor.isolating(body))
    }

    /// `runTask` on the main executor with a `@MainActor` body that takes no token (C9.5, C9.10).
    @inlinable
    @discardableResult
    public func runTask<T: Sendable>(
        on executor: MainExecutor,
        token: CancellationToken = .none,
        _ body: @escaping @MainActor @Sendable () throws -> any AsyncTask<T>
    ) -> any AsyncTask<T> {
        runTask(on: executor.executor, token: token, executor.isolating { (_: CancellationToken) in try body() })
    }

    @available(*, unavailable, message: "the body returns a task: use runTask, which unwraps it (C9.5)")
    public func run<T: Sendable>(
        on executor: MainExecutor,
        token: CancellationToken = .none,
        _ body: @escaping @MainActor @Sendable (CancellationToken) throws -> any AsyncTask<T>
    ) -> any AsyncTask<T> {
        runTask(on: executor, token: token, body)
    }

    @available(*, unavailable, message: "the body returns a task: use runTask, which unwraps it (C9.5)")
    public func run<T: Sendable>(
        on executor: MainExecutor,
        token: CancellationToken = .none,
        _ body: @escaping @MainActor @Sendable () throws -> any AsyncTask<T>
    ) -> any AsyncTask<T> {
        runTask(on: executor, token: token, body)
    }
}
