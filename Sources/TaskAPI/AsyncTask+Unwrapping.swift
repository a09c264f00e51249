/// Where a value form is given a body that returns a task (C2.6): these declarations are never
/// chosen by a call that compiles (the solver skips unavailable declarations, so they cost a
/// chain nothing); when a call fails to compile because its result is a task of a task where a
/// task was expected (`let t: any AsyncTask<Int> = task.map { backend.succeeded($0) }`), the
/// compiler's message names the form that unwraps. One for each value call form: the executor
/// optional, the main executor, a pinned actor (TaskBackend+Run.swift, TaskBackend+Retry.swift,
/// PreparedTask.swift and TaskFactory+Unwrapping.swift hold the others).
///
/// Where nothing expects a task of the value, a task-returning body compiles as a value form's
/// (`let t = task.map { backend.succeeded($0) }` is an `any AsyncTask<any AsyncTask<Int>>`): the
/// generic value form fits it, and the solver prefers any declaration that is available. `then`,
/// the promise word, waits for such a task (AsyncTask+Then.swift).
extension AsyncTask {
    @available(*, unavailable, message: "the body returns a task: use flatMap, which unwraps it (C2.6)")
    public func map<U: Sendable>(
        on executor: (any AsyncTaskExecutor)? = nil,
        token: CancellationToken = .none,
        _ transform: @escaping @Sendable (Success) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        flatMap(on: executor ?? backend.defaultExecutor, token: token, transform)
    }

    @available(*, unavailable, message: "the body returns a task: use flatMap, which takes its value (then waits for it, C2.6)")
    public func then<U: Sendable>(
        on executor: (any AsyncTaskExecutor)? = nil,
        token: CancellationToken = .none,
        _ transform: @escaping @Sendable (Success) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        flatMap(on: executor ?? backend.defaultExecutor, token: token, transform)
    }

    @available(*, unavailable, message: "the body returns a task: use continueWithTask, which unwraps it (C2.6)")
    public func continueWith<U: Sendable>(
        on executor: (any AsyncTaskExecutor)? = nil,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (Completion<Success>) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        continueWithTask(on: executor ?? backend.defaultExecutor, token: token, body)
    }

    @available(*, unavailable, message: "the handler returns a task: use recoverTask, which unwraps it (C2.6)")
    public func recover(
        on executor: (any AsyncTaskExecutor)? = nil,
        token: CancellationToken = .none,
        _ handler: @escaping @Sendable (any Error) throws -> any AsyncTask<Success>
    ) -> any AsyncTask<Success> {
        recoverTask(on: executor ?? backend.defaultExecutor, token: token, handler)
    }

    @available(*, unavailable, message: "the handler returns a task: use recoverTask, which unwraps it (C2.6)")
    public func `catch`(
        on executor: (any AsyncTaskExecutor)? = nil,
        token: CancellationToken = .none,
        _ handler: @escaping @Sendable (any Error) throws -> any AsyncTask<Success>
    ) -> any AsyncTask<Success> {
        recoverTask(on: executor ?? backend.defaultExecutor, token: token, handler)
    }
}

/// The same, for the value forms on the main executor and on a pinned actor (C9.10).
extension AsyncTask {
    @available(*, unavailable, message: "the body returns a task: use continueWithTask, which unwraps it (C2.6)")
    public func continueWith<U: Sendable>(
        on executor: MainExecutor,
        token: CancellationToken = .none,
        _ body: @escaping @MainActor @Sendable (Completion<Success>) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        continueWithTask(on: executor, token: token, body)
    }

    @available(*, unavailable, message: "the body returns a task: use flatMap, which unwraps it (C2.6)")
    public func map<U: Sendable>(
        on executor: MainExecutor,
        token: CancellationToken = .none,
        _ body: @escaping @MainActor @Sendable (Success) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        flatMap(on: executor, token: token, body)
    }

    @available(*, unavailable, message: "the body returns a task: use flatMap, which takes its value (then waits for it, C2.6)")
    public func then<U: Sendable>(
        on executor: MainExecutor,
        token: CancellationToken = .none,
        _ body: @escaping @MainActor @Sendable (Success) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        flatMap(on: executor, token: token, body)
    }

    @available(*, unavailable, message: "the handler returns a task: use recoverTask, which unwraps it (C2.6)")
    public func recover(
        on executor: MainExecutor,
        token: CancellationToken = .none,
        _ body: @escaping @MainActor @Sendable (any Error) throws -> any AsyncTask<Success>
    ) -> any AsyncTask<Success> {
        recoverTask(on: executor, token: token, body)
    }

    @available(*, unavailable, message: "the handler returns a task: use recoverTask, which unwraps it (C2.6)")
    public func `catch`(
        on executor: MainExecutor,
        token: CancellationToken = .none,
        _ body: @escaping @MainActor @Sendable (any Error) throws -> any AsyncTask<Success>
    ) -> any AsyncTask<Success> {
        recoverTask(on: executor, token: token, body)
    }

    @available(*, unavailable, message: "the body returns a task: use continueWithTask, which unwraps it (C2.6)")
    public func continueWith<U: Sendable, A: PinnedActor>(
        on actor: A,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (isolated A, Completion<Success>) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        continueWithTask(on: actor, token: token, body)
    }

    @available(*, unavailable, message: "the body returns a task: use flatMap, which unwraps it (C2.6)")
    public func map<U: Sendable, A: PinnedActor>(
        on actor: A,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (isolated A, Success) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        flatMap(on: actor, token: token, body)
    }

    @available(*, unavailable, message: "the body returns a task: use flatMap, which takes its value (then waits for it, C2.6)")
    public func then<U: Sendable, A: PinnedActor>(
        on actor: A,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (isolated A, Success) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        flatMap(on: actor, token: token, body)
    }

    @available(*, unavailable, message: "the handler returns a task: use recoverTask, which unwraps it (C2.6)")
    public func recover<A: PinnedActor>(
        on actor: A,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (isolated A, any Error) throws -> any AsyncTask<Success>
    ) -> any AsyncTask<Success> {
        recoverTask(on: actor, token: token, body)
    }

    @available(*, unavailable, message: "the handler returns a task: use recoverTask, which unwraps it (C2.6)")
    public func `catch`<A: PinnedActor>(
        on actor: A,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (isolated A, any Error) throws -> any AsyncTask<Success>
    ) -> any AsyncTask<Success> {
        recoverTask(on: actor, token: token, body)
    }
}
