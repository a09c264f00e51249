/// A value holding defaults, the backend, an executor and a token, that vends tasks and
/// continuations made with them (seed 002's `TaskFactory`, HNTask's settable default executor)
/// (C9.2).
///
/// A factory is a plain value: setting `executor` or `token` changes that factory only, and
/// copies made before keep theirs. Everything it vends follows the contract's rules exactly as
/// the backend's own calls do; it only fills in the arguments. Safe to share between threads.
///
///     var factory = TaskFactory(backend: backend)
///     factory.executor = ui                     // every task and continuation now runs on ui
///     let shown = factory.run { "ready" }
public struct TaskFactory: Sendable {
    /// The backend that makes the tasks.
    public var backend: any TaskBackend
    /// Where bodies and continuations run.
    public var executor: any AsyncTaskExecutor
    /// The token every task and continuation made by this factory observes.
    public var token: CancellationToken

    /// A factory for `backend`, running on `executor` (default: the backend's default executor)
    /// under `token` (default: none).
    public init(backend: any TaskBackend, executor: (any AsyncTaskExecutor)? = nil, token: CancellationToken = .none) {
        self.backend = backend
        self.executor = executor ?? backend.defaultExecutor
        self.token = token
    }

    /// This factory with another executor.
    public func with(executor: any AsyncTaskExecutor) -> TaskFactory {
        var copy = self
        copy.executor = executor
        return copy
    }

    /// This factory with another token.
    public func with(token: CancellationToken) -> TaskFactory {
        var copy = self
        copy.token = token
        return copy
    }

    /// Starts `body` at once on the factory's executor under its token; see
    /// `TaskBackend.run(on:token:_:)`. For another token: `factory.with(token: t).run { ... }`.
    /// The body returns the value; a body returning a task is `runTask` (C2.6, C9.5).
    @discardableResult
    public func run<T: Sendable>(_ body: @escaping @Sendable (CancellationToken) throws -> T) -> any AsyncTask<T> {
        backend.run(on: executor, token: token, body)
    }

    /// `run` for a body that takes no token: `factory.run { 40 }`.
    @discardableResult
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) -> any AsyncTask<T> {
        backend.run(on: executor, token: token) { (_: CancellationToken) in try body() }
    }

    /// `run` for a body that returns a task, unwrapped (C9.5).
    @discardableResult
    public func runTask<T: Sendable>(
        _ body: @escaping @Sendable (CancellationToken) throws -> any AsyncTask<T>
    ) -> any AsyncTask<T> {
        backend.runTask(on: executor, token: token, body)
    }

    /// `runTask` for a body that takes no token (C9.5).
    @discardableResult
    public func runTask<T: Sendable>(_ body: @escaping @Sendable () throws -> any AsyncTask<T>) -> any AsyncTask<T> {
        backend.runTask(on: executor, token: token, body)
    }

    /// An async body as a Swift task under the factory's token (C9.6): `factory.run { try await f() }`.
    /// It runs on the backend's threads, as `TaskBackend.runAsync` does; the factory's executor
    /// does not apply to Swift tasks.
    @_disfavoredOverload
    @discardableResult
    public func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> any AsyncTask<T> {
        backend.runAsync(token: token, body)
    }

    /// A prepared task that starts on the factory's executor unless `start(on:)` names another
    /// (C9.3). The body returns the value; a body returning a task is `prepareTask` (C2.6).
    public func prepare<T: Sendable>(_ body: @escaping @Sendable (CancellationToken) throws -> T) -> PreparedTask<T> {
        backend.prepare(on: executor, token: token, body)
    }

    /// `prepare` for a body that takes no token (C9.3).
    public func prepare<T: Sendable>(_ body: @escaping @Sendable () throws -> T) -> PreparedTask<T> {
        backend.prepare(on: executor, token: token, body)
    }

    /// `prepare` for a body that returns a task, unwrapped once started (C9.3, C2.6).
    public func prepareTask<T: Sendable>(
        _ body: @escaping @Sendable (CancellationToken) throws -> any AsyncTask<T>
    ) -> PreparedTask<T> {
        backend.prepareTask(on: executor, token: token, body)
    }

    /// `prepareTask` for a body that takes no token (C9.3, C2.6).
    public func prepareTask<T: Sendable>(_ body: @escaping @Sendable () throws -> any AsyncTask<T>) -> PreparedTask<T> {
        backend.prepareTask(on: executor, token: token, body)
    }

    /// `TaskBackend.retry` with the factory's executor and token (C9.4). The body returns the
    /// attempt's value; a body returning a task is `retryTask` (C2.6).
    public func retry<T: Sendable>(
        attempts: Int,
        backoff: Backoff = .none,
        while shouldRetry: @escaping @Sendable (_ attempt: Int, _ error: any Error) -> Bool = { _, _ in true },
        _ body: @escaping @Sendable (CancellationToken) throws -> T
    ) -> any AsyncTask<T> {
        backend.retry(attempts: attempts, backoff: backoff, on: executor, token: token, while: shouldRetry, body)
    }

    /// `retry` for a body that takes no token (C9.4).
    public func retry<T: Sendable>(
        attempts: Int,
        backoff: Backoff = .none,
        while shouldRetry: @escaping @Sendable (_ attempt: Int, _ error: any Error) -> Bool = { _, _ in true },
        _ body: @escaping @Sendable () throws -> T
    ) -> any AsyncTask<T> {
        backend.retry(attempts: attempts, backoff: backoff, on: executor, token: token, while: shouldRetry, body)
    }

    /// `TaskBackend.retryTask` with the factory's executor and token (C9.4, C2.6).
    public func retryTask<T: Sendable>(
        attempts: Int,
        backoff: Backoff = .none,
        while shouldRetry: @escaping @Sendable (_ attempt: Int, _ error: any Error) -> Bool = { _, _ in true },
        _ body: @escaping @Sendable (CancellationToken) throws -> any AsyncTask<T>
    ) -> any AsyncTask<T> {
        backend.retryTask(attempts: attempts, backoff: backoff, on: executor, token: token, while: shouldRetry, body)
    }

    /// `retryTask` for a body that takes no token (C9.4, C2.6).
    public func retryTask<T: Sendable>(
        attempts: Int,
        backoff: Backoff = .none,
        while shouldRetry: @escaping @Sendable (_ attempt: Int, _ error: any Error) -> Bool = { _, _ in true },
        _ body: @escaping @Sendable () throws -> any AsyncTask<T>
    ) -> any AsyncTask<T> {
        backend.retryTask(attempts: attempts, backoff: backoff, on: executor, token: token, while: shouldRetry, body)
    }

    /// `TaskBackend.delay` under the factory's token (C5.4).
    public func delay(_ delay: Duration) -> any AsyncTask<Void> {
        backend.delay(delay, token: token)
    }
}
