/// The continuations with an isolated body (C9.10): registered on the main executor, the body is
/// `@MainActor`; registered on a `PinnedActor`, it takes the actor `isolated`. Either reads and
/// writes its isolated state directly, without `assumeIsolated`. Each forwards to the requirement
/// with the executor as a plain `AsyncTaskExecutor`, the body wrapped to enter its isolation, which holds
/// in the executor's jobs (C9.8, C9.9). Neither `MainExecutor` nor an actor is an `AsyncTaskExecutor`, so
/// each call has one candidate (C9.1).
extension AsyncTask {
    /// `continueWith(on:token:_:)` on the main executor, with a `@MainActor` body (C9.10).
    @inlinable
    @discardableResult
    public func continueWith<U: Sendable>(
        on executor: MainExecutor,
        token: CancellationToken = .none,
        _ body: @escaping @MainActor @Sendable (Completion<Success>) throws -> U
    ) -> any AsyncTask<U> {
        continueWith(on: executor.executor, token: token, executor.isolating(body))
    }

    /// `continueWithTask(on:token:_:)` on the main executor, with a `@MainActor` body (C9.10).
    @inlinable
    @discardableResult
    public func continueWithTask<U: Sendable>(
        on executor: MainExecutor,
        token: CancellationToken = .none,
        _ body: @escaping @MainActor @Sendable (Completion<Success>) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        continueWithTask(on: executor.executor, token: token, executor.isolating(body))
    }

    /// `map(on:token:_:)` on the main executor, with a `@MainActor` body (C9.10).
    @inlinable
    @discardableResult
    public func map<U: Sendable>(
        on executor: MainExecutor,
        token: CancellationToken = .none,
        _ body: @escaping @MainActor @Sendable (Success) throws -> U
    ) -> any AsyncTask<U> {
        map(on: executor.executor, token: token, executor.isolating(body))
    }

    /// `flatMap(on:token:_:)` on the main executor, with a `@MainActor` body (C9.10).
    @inlinable
    @discardableResult
    public func flatMap<U: Sendable>(
        on executor: MainExecutor,
        token: CancellationToken = .none,
        _ body: @escaping @MainActor @Sendable (Success) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        flatMap(on: executor.executor, token: token, executor.isolating(body))
    }

    /// `then(on:token:_:)` on the main executor, with a `@MainActor` body (C9.10): `map`, except
    /// that a task the body returns is waited for (C2.6).
    @inlinable
    @discardableResult
    public func then<U: Sendable>(
        on executor: MainExecutor,
        token: CancellationToken = .none,
        _ body: @escaping @MainActor @Sendable (Success) throws -> U
    ) -> any AsyncTask<U> {
        thenStep(on: executor.executor, token: token, executor.isolating(body))
    }

    /// `recover(on:token:_:)` on the main executor, with a `@MainActor` body (C9.10).
    @inlinable
    @discardableResult
    public func recover(
        on executor: MainExecutor,
        token: CancellationToken = .none,
        _ body: @escaping @MainActor @Sendable (any Error) throws -> Success
    ) -> any AsyncTask<Success> {
        recover(on: executor.executor, token: token, executor.isolating(body))
    }

    /// `recoverTask(on:token:_:)` on the main executor, with a `@MainActor` body (C9.10).
    @inlinable
    @discardableResult
    public func recoverTask(
        on executor: MainExecutor,
        token: CancellationToken = .none,
        _ body: @escaping @MainActor @Sendable (any Error) throws -> any AsyncTask<Success>
    ) -> any AsyncTask<Success> {
        recoverTask(on: executor.executor, token: token, executor.isolating(body))
    }

    /// `recover(on:token:_:)` on the main executor, with a `@MainActor` body (C9.10).
    @inlinable
    public func `catch`(
        on executor: MainExecutor,
        token: CancellationToken = .none,
        _ body: @escaping @MainActor @Sendable (any Error) throws -> Success
    ) -> any AsyncTask<Success> {
        recover(on: executor.executor, token: token, executor.isolating(body))
    }

    /// `finally(on:_:)` on the main executor, with a `@MainActor` body (C9.10).
    @inlinable
    @discardableResult
    public func finally(
        on executor: MainExecutor,
        _ body: @escaping @MainActor @Sendable (Completion<Success>) throws -> Void
    ) -> any AsyncTask<Success> {
        finally(on: executor.executor, executor.isolating(body))
    }

    /// `finallyTask(on:_:)` on the main executor, with a `@MainActor` body (C9.10).
    @inlinable
    @discardableResult
    public func finallyTask(
        on executor: MainExecutor,
        _ body: @escaping @MainActor @Sendable (Completion<Success>) throws -> any AsyncTask<Void>
    ) -> any AsyncTask<Success> {
        finallyTask(on: executor.executor, executor.isolating(body))
    }

    /// `whenComplete(on:_:)` on the main executor, with a `@MainActor` body (C9.10).
    @inlinable
    public func whenComplete(on executor: MainExecutor, _ body: @escaping @MainActor @Sendable (Completion<Success>) -> Void) {
        whenComplete(on: executor.executor) { outcome in MainActor.assumeIsolated { body(outcome) } }
    }
}

extension AsyncTask {
    /// `continueWith(on:token:_:)` on `actor`'s executor, with a body that takes the actor `isolated` (C9.10).
    @inlinable
    @discardableResult
    public func continueWith<U: Sendable, A: PinnedActor>(
        on actor: A,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (isolated A, Completion<Success>) throws -> U
    ) -> any AsyncTask<U> {
        continueWith(on: actor.executor as any AsyncTaskExecutor, token: token, actor.isolating(body))
    }

    /// `continueWithTask(on:token:_:)` on `actor`'s executor, with a body that takes the actor `isolated` (C9.10).
    @inlinable
    @discardableResult
    public func continueWithTask<U: Sendable, A: PinnedActor>(
        on actor: A,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (isolated A, Completion<Success>) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        continueWithTask(on: actor.executor as any AsyncTaskExecutor, token: token, actor.isolating(body))
    }

    /// `map(on:token:_:)` on `actor`'s executor, with a body that takes the actor `isolated` (C9.10).
    @inlinable
    @discardableResult
    public func map<U: Sendable, A: PinnedActor>(
        on actor: A,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (isolated A, Success) throws -> U
    ) -> any AsyncTask<U> {
        map(on: actor.executor as any AsyncTaskExecutor, token: token, actor.isolating(body))
    }

    /// `flatMap(on:token:_:)` on `actor`'s executor, with a body that takes the actor `isolated` (C9.10).
    @inlinable
    @discardableResult
    public func flatMap<U: Sendable, A: PinnedActor>(
        on actor: A,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (isolated A, Success) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        flatMap(on: actor.executor as any AsyncTaskExecutor, token: token, actor.isolating(body))
    }

    /// `then(on:token:_:)` on `actor`'s executor, with a body that takes the actor `isolated`
    /// (C9.10): `map`, except that a task the body returns is waited for (C2.6).
    @inlinable
    @discardableResult
    public func then<U: Sendable, A: PinnedActor>(
        on actor: A,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (isolated A, Success) throws -> U
    ) -> any AsyncTask<U> {
        thenStep(on: actor.executor as any AsyncTaskExecutor, token: token, actor.isolating(body))
    }

    /// `recover(on:token:_:)` on `actor`'s executor, with a body that takes the actor `isolated` (C9.10).
    @inlinable
    @discardableResult
    public func recover<A: PinnedActor>(
        on actor: A,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (isolated A, any Error) throws -> Success
    ) -> any AsyncTask<Success> {
        recover(on: actor.executor as any AsyncTaskExecutor, token: token, actor.isolating(body))
    }

    /// `recoverTask(on:token:_:)` on `actor`'s executor, with a body that takes the actor `isolated` (C9.10).
    @inlinable
    @discardableResult
    public func recoverTask<A: PinnedActor>(
        on actor: A,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (isolated A, any Error) throws -> any AsyncTask<Success>
    ) -> any AsyncTask<Success> {
        recoverTask(on: actor.executor as any AsyncTaskExecutor, token: token, actor.isolating(body))
    }

    /// `recover(on:token:_:)` on `actor`'s executor, with a body that takes the actor `isolated` (C9.10).
    @inlinable
    public func `catch`<A: PinnedActor>(
        on actor: A,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (isolated A, any Error) throws -> Success
    ) -> any AsyncTask<Success> {
        recover(on: actor.executor as any AsyncTaskExecutor, token: token, actor.isolating(body))
    }

    /// `finally(on:_:)` on `actor`'s executor, with a body that takes the actor `isolated` (C9.10).
    @inlinable
    @discardableResult
    public func finally<A: PinnedActor>(
        on actor: A,
        _ body: @escaping @Sendable (isolated A, Completion<Success>) throws -> Void
    ) -> any AsyncTask<Success> {
        finally(on: actor.executor as any AsyncTaskExecutor, actor.isolating(body))
    }

    /// `finallyTask(on:_:)` on `actor`'s executor, with a body that takes the actor `isolated` (C9.10).
    @inlinable
    @discardableResult
    public func finallyTask<A: PinnedActor>(
        on actor: A,
        _ body: @escaping @Sendable (isolated A, Completion<Success>) throws -> any AsyncTask<Void>
    ) -> any AsyncTask<Success> {
        finallyTask(on: actor.executor as any AsyncTaskExecutor, actor.isolating(body))
    }

    /// `whenComplete(on:_:)` on `actor`'s executor, with a body that takes the actor `isolated` (C9.10).
    @inlinable
    public func whenComplete<A: PinnedActor>(on actor: A, _ body: @escaping @Sendable (isolated A, Completion<Success>) -> Void) {
        whenComplete(on: actor.executor as any AsyncTaskExecutor) { outcome in actor.assumeIsolated { body($0, outcome) } }
    }
}
