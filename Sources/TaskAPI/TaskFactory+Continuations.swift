/// The continuations a factory vends: every continuation of `AsyncTask`, registered on `task`
/// with the factory's executor and token (C9.2). The same names take the same bodies: a value
/// for `continueWith`, `map`, `then` (which also waits for a task its body returns), `recover`,
/// `catch` and `finally`; a task, unwrapped, for `continueWithTask`, `flatMap`, `recoverTask`
/// and `finallyTask` (C2.6).
extension TaskFactory {
    /// `task.continueWith` on the factory's executor under its token (C3.1, C4.3).
    @discardableResult
    public func continueWith<S: Sendable, U: Sendable>(
        _ task: any AsyncTask<S>,
        _ body: @escaping @Sendable (Completion<S>) throws -> U
    ) -> any AsyncTask<U> {
        task.continueWith(on: executor, token: token, body)
    }

    /// `task.continueWithTask` on the factory's executor under its token (C2.6, C4.3).
    @discardableResult
    public func continueWithTask<S: Sendable, U: Sendable>(
        _ task: any AsyncTask<S>,
        _ body: @escaping @Sendable (Completion<S>) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        task.continueWithTask(on: executor, token: token, body)
    }

    /// `task.map` on the factory's executor under its token (C3.3).
    @discardableResult
    public func map<S: Sendable, U: Sendable>(
        _ task: any AsyncTask<S>,
        _ transform: @escaping @Sendable (S) throws -> U
    ) -> any AsyncTask<U> {
        task.map(on: executor, token: token, transform)
    }

    /// `task.flatMap` on the factory's executor under its token (C2.6, C3.3).
    @discardableResult
    public func flatMap<S: Sendable, U: Sendable>(
        _ task: any AsyncTask<S>,
        _ transform: @escaping @Sendable (S) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        task.flatMap(on: executor, token: token, transform)
    }

    /// `task.then` on the factory's executor under its token (C3.3): `map`, except that a task
    /// the body returns is waited for (C2.6).
    @discardableResult
    public func then<S: Sendable, U: Sendable>(
        _ task: any AsyncTask<S>,
        _ transform: @escaping @Sendable (S) throws -> U
    ) -> any AsyncTask<U> {
        task.thenStep(on: executor, token: token, transform)
    }

    /// `task.recover` on the factory's executor under its token (C3.3).
    @discardableResult
    public func recover<S: Sendable>(
        _ task: any AsyncTask<S>,
        _ handler: @escaping @Sendable (any Error) throws -> S
    ) -> any AsyncTask<S> {
        task.recover(on: executor, token: token, handler)
    }

    /// `task.recoverTask` on the factory's executor under its token (C2.6, C3.3).
    @discardableResult
    public func recoverTask<S: Sendable>(
        _ task: any AsyncTask<S>,
        _ handler: @escaping @Sendable (any Error) throws -> any AsyncTask<S>
    ) -> any AsyncTask<S> {
        task.recoverTask(on: executor, token: token, handler)
    }

    /// `task.catch` (the same as `recover`) on the factory's executor under its token (C3.3).
    public func `catch`<S: Sendable>(
        _ task: any AsyncTask<S>,
        _ handler: @escaping @Sendable (any Error) throws -> S
    ) -> any AsyncTask<S> {
        task.recover(on: executor, token: token, handler)
    }

    /// `task.finally` on the factory's executor (C3.3). Like the task's own, it runs on every
    /// outcome, so the factory's token does not apply.
    @discardableResult
    public func finally<S: Sendable>(
        _ task: any AsyncTask<S>,
        _ body: @escaping @Sendable (Completion<S>) throws -> Void
    ) -> any AsyncTask<S> {
        task.finally(on: executor, body)
    }

    /// `task.finallyTask` on the factory's executor (C2.6, C3.3); the token does not apply.
    @discardableResult
    public func finallyTask<S: Sendable>(
        _ task: any AsyncTask<S>,
        _ body: @escaping @Sendable (Completion<S>) throws -> any AsyncTask<Void>
    ) -> any AsyncTask<S> {
        task.finallyTask(on: executor, body)
    }

    /// `task.whenComplete` on the factory's executor (C2.1, C2.5).
    public func whenComplete<S: Sendable>(
        _ task: any AsyncTask<S>,
        _ body: @escaping @Sendable (Completion<S>) -> Void
    ) {
        task.whenComplete(on: executor, body)
    }
}
