/// Where a value form is given a body that returns a task (C2.6): these declarations are never
/// chosen by a call that compiles (the solver skips unavailable declarations, so they cost a
/// chain nothing); when a call fails to compile because its result is a task of a task where a
/// task was expected (`let t: any AsyncTask<Int> = task.map { backend.succeeded($0) }`), the
/// compiler's message names the form that unwraps.
extension AsyncTask {
    @available(*, unavailable, message: "the body returns a task: use flatMap, which unwraps it (C2.6)")
    public func map<U: Sendable>(
        on executor: (any Executor)? = nil,
        token: CancellationToken = .none,
        _ transform: @escaping @Sendable (Success) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        flatMap(on: executor ?? backend.defaultExecutor, token: token, transform)
    }

    @available(*, unavailable, message: "the body returns a task: use flatMap, which unwraps it (C2.6)")
    public func then<U: Sendable>(
        on executor: (any Executor)? = nil,
        token: CancellationToken = .none,
        _ transform: @escaping @Sendable (Success) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        flatMap(on: executor ?? backend.defaultExecutor, token: token, transform)
    }

    @available(*, unavailable, message: "the body returns a task: use continueWithTask, which unwraps it (C2.6)")
    public func continueWith<U: Sendable>(
        on executor: (any Executor)? = nil,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (Completion<Success>) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        continueWithTask(on: executor ?? backend.defaultExecutor, token: token, body)
    }

    @available(*, unavailable, message: "the handler returns a task: use recoverTask, which unwraps it (C2.6)")
    public func recover(
        on executor: (any Executor)? = nil,
        token: CancellationToken = .none,
        _ handler: @escaping @Sendable (any Error) throws -> any AsyncTask<Success>
    ) -> any AsyncTask<Success> {
        recoverTask(on: executor ?? backend.defaultExecutor, token: token, handler)
    }

    @available(*, unavailable, message: "the handler returns a task: use recoverTask, which unwraps it (C2.6)")
    public func `catch`(
        on executor: (any Executor)? = nil,
        token: CancellationToken = .none,
        _ handler: @escaping @Sendable (any Error) throws -> any AsyncTask<Success>
    ) -> any AsyncTask<Success> {
        recoverTask(on: executor ?? backend.defaultExecutor, token: token, handler)
    }
}
