/// A factory's value forms given a body that returns a task (C2.6), as AsyncTask+Unwrapping.swift
/// says: never chosen by a call that compiles; where a task of the value was expected, the
/// compiler's message names the form that unwraps.
extension TaskFactory {
    @available(*, unavailable, message: "the body returns a task: use runTask, which unwraps it (C9.5)")
    public func run<T: Sendable>(_ body: @escaping @Sendable (CancellationToken) throws -> any AsyncTask<T>) -> any AsyncTask<T> {
        runTask(body)
    }

    @available(*, unavailable, message: "the body returns a task: use runTask, which unwraps it (C9.5)")
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> any AsyncTask<T>) -> any AsyncTask<T> {
        runTask(body)
    }

    @available(*, unavailable, message: "the body returns a task: use prepareTask, which unwraps it (C2.6)")
    public func prepare<T: Sendable>(_ body: @escaping @Sendable (CancellationToken) throws -> any AsyncTask<T>) -> PreparedTask<T> {
        prepareTask(body)
    }

    @available(*, unavailable, message: "the body returns a task: use prepareTask, which unwraps it (C2.6)")
    public func prepare<T: Sendable>(_ body: @escaping @Sendable () throws -> any AsyncTask<T>) -> PreparedTask<T> {
        prepareTask(body)
    }

    @available(*, unavailable, message: "the body returns a task: use retryTask, which unwraps it (C9.4)")
    public func retry<T: Sendable>(
        attempts: Int,
        backoff: Backoff = .none,
        while shouldRetry: @escaping @Sendable (_ attempt: Int, _ error: any Error) -> Bool = { _, _ in true },
        _ body: @escaping @Sendable (CancellationToken) throws -> any AsyncTask<T>
    ) -> any AsyncTask<T> {
        retryTask(attempts: attempts, backoff: backoff, while: shouldRetry, body)
    }

    @available(*, unavailable, message: "the body returns a task: use retryTask, which unwraps it (C9.4)")
    public func retry<T: Sendable>(
        attempts: Int,
        backoff: Backoff = .none,
        while shouldRetry: @escaping @Sendable (_ attempt: Int, _ error: any Error) -> Bool = { _, _ in true },
        _ body: @escaping @Sendable () throws -> any AsyncTask<T>
    ) -> any AsyncTask<T> {
        retryTask(attempts: attempts, backoff: backoff, while: shouldRetry, body)
    }

    @available(*, unavailable, message: "the body returns a task: use continueWithTask, which unwraps it (C2.6)")
    public func continueWith<S: Sendable, U: Sendable>(
        _ task: any AsyncTask<S>,
        _ body: @escaping @Sendable (Completion<S>) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        continueWithTask(task, body)
    }

    @available(*, unavailable, message: "the body returns a task: use flatMap, which unwraps it (C2.6)")
    public func map<S: Sendable, U: Sendable>(
        _ task: any AsyncTask<S>,
        _ transform: @escaping @Sendable (S) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        flatMap(task, transform)
    }

    @available(*, unavailable, message: "the body returns a task: use flatMap, which takes its value (then waits for it, C2.6)")
    public func then<S: Sendable, U: Sendable>(
        _ task: any AsyncTask<S>,
        _ transform: @escaping @Sendable (S) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        flatMap(task, transform)
    }

    @available(*, unavailable, message: "the handler returns a task: use recoverTask, which unwraps it (C2.6)")
    public func recover<S: Sendable>(
        _ task: any AsyncTask<S>,
        _ handler: @escaping @Sendable (any Error) throws -> any AsyncTask<S>
    ) -> any AsyncTask<S> {
        recoverTask(task, handler)
    }

    @available(*, unavailable, message: "the handler returns a task: use recoverTask, which unwraps it (C2.6)")
    public func `catch`<S: Sendable>(
        _ task: any AsyncTask<S>,
        _ handler: @escaping @Sendable (any Error) throws -> any AsyncTask<S>
    ) -> any AsyncTask<S> {
        recoverTask(task, handler)
    }
}
