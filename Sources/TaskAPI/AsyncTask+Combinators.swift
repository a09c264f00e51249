/// Value-level continuations (C3.3): the defaults of the `AsyncTask` requirements, each a thin
/// layer over `continueWith`/`continueWithTask`, then the conveniences call sites use.
///
/// Failure and cancellation pass through `map`/`flatMap`/`then` unchanged; `recover` and `catch`
/// see only failures; `finally` sees every outcome.
extension AsyncTask {
    @_disfavoredOverload
    @discardableResult
    public func map<U: Sendable>(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ transform: @escaping @Sendable (Success) throws -> U
    ) -> any AsyncTask<U> {
        continueWith(on: executor, token: token) { completion in
            try transform(completion.get())
        }
    }

    /// No task of `Self`'s type: the `map` conveniences call `map(on:token:_:)` instead.
    @_disfavoredOverload
    public func mapKeepingType<U: Sendable>(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ transform: @escaping @Sendable (Success) throws -> U
    ) -> Self? {
        nil
    }

    @_disfavoredOverload
    @discardableResult
    public func flatMap<U: Sendable>(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ transform: @escaping @Sendable (Success) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        continueWithTask(on: executor, token: token) { completion in
            try transform(completion.get())
        }
    }

    @_disfavoredOverload
    @discardableResult
    public func recover(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ handler: @escaping @Sendable (any Error) throws -> Success
    ) -> any AsyncTask<Success> {
        continueWith(on: executor, token: token) { completion in
            if case .failure(let error) = completion { return try handler(error) }
            return try completion.get()
        }
    }

    @_disfavoredOverload
    @discardableResult
    public func recoverTask(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ handler: @escaping @Sendable (any Error) throws -> any AsyncTask<Success>
    ) -> any AsyncTask<Success> {
        let backend = self.backend
        return continueWithTask(on: executor, token: token) { completion in
            if case .failure(let error) = completion { return try handler(error) }
            return backend.completed(completion)
        }
    }

    @_disfavoredOverload
    @discardableResult
    public func finally(
        on executor: any AsyncTaskExecutor,
        _ body: @escaping @Sendable (Completion<Success>) throws -> Void
    ) -> any AsyncTask<Success> {
        continueWith(on: executor, token: .none) { completion in
            try body(completion)
            return try completion.get()
        }
    }

    @_disfavoredOverload
    @discardableResult
    public func finallyTask(
        on executor: any AsyncTaskExecutor,
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

/// The conveniences, shaped as `continueWith`'s (AsyncTask+ContinueWith.swift): one candidate
/// per call form, the executor and the token each left out or named (C9.1). A name says what
/// its body returns: `map`, `then`, `recover`, `catch` and `finally` take a value, `flatMap`,
/// `recoverTask` and `finallyTask` a task, whose outcome the result takes; `then`, the promise
/// word, also waits for a task its body returns (C2.6).
extension AsyncTask {
    /// Transforms a success; failures and cancellation pass through unchanged (C3.3). Swift's
    /// `map`: a transform returning a task makes a task of a task; `flatMap` unwraps it.
    @inlinable
    @discardableResult
    public func map<U: Sendable>(
        on executor: (any AsyncTaskExecutor)? = nil,
        _ transform: @escaping @Sendable (Success) throws -> U
    ) -> any AsyncTask<U> {
        let executor = executor ?? backend.defaultExecutor
        if let task = mapSameType(on: executor, token: .none, transform) { return task }
        return map(on: executor, token: .none, transform)
    }

    /// `map` on the default executor, under `token` (C4.3).
    @inlinable
    @discardableResult
    public func map<U: Sendable>(
        token: CancellationToken,
        _ transform: @escaping @Sendable (Success) throws -> U
    ) -> any AsyncTask<U> {
        let executor = backend.defaultExecutor
        if let task = mapSameType(on: executor, token: token, transform) { return task }
        return map(on: executor, token: token, transform)
    }

    /// `mapKeepingType(on:token:_:)`'s answer as an `any AsyncTask<U>`, for a transform whose
    /// `U` is `Success`; `nil` for any other `U`, or when the backend makes no task of `Self`'s
    /// type. Built from `Self`'s conformance, which this generic code is handed.
    @inlinable @inline(__always)
    func mapSameType<U: Sendable>(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ transform: @escaping @Sendable (Success) throws -> U
    ) -> (any AsyncTask<U>)? {
        guard U.self == Success.self, let node = mapKeepingType(on: executor, token: token, transform) else { return nil }
        let task: any AsyncTask<Success> = node
        assert(task is any AsyncTask<U>, "map: a same-type task of \(Success.self) is not an AsyncTask<\(U.self)>")
        // Safe: `U` and `Success` are one type (checked just above), so an `any AsyncTask<Success>`
        // is an `any AsyncTask<U>`, with the same representation (one reference and one witness
        // table): the cast changes no bits, and no type a reader of it sees. `as`: passed bare,
        // the existential would be opened (SE-0352) and its one-word task cast to a two-word
        // existential, a size mismatch that traps.
        return unsafeBitCast(task as any AsyncTask<Success>, to: (any AsyncTask<U>).self)
    }

    /// Chains a task-returning step; the result takes the inner task's outcome (C2.6, C3.3).
    @inlinable
    @discardableResult
    public func flatMap<U: Sendable>(
        on executor: (any AsyncTaskExecutor)? = nil,
        _ transform: @escaping @Sendable (Success) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        flatMap(on: executor ?? backend.defaultExecutor, token: .none, transform)
    }

    /// `flatMap` on the default executor, under `token` (C4.3).
    @inlinable
    @discardableResult
    public func flatMap<U: Sendable>(
        token: CancellationToken,
        _ transform: @escaping @Sendable (Success) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        flatMap(on: backend.defaultExecutor, token: token, transform)
    }

    /// The promise word (HNTask's, JavaScript's `then`): `map`, except that a task the body
    /// returns is waited for, as a promise's `then` does (C2.6). Given such a body
    /// (`then { count -> any AsyncTask<Void> in ... }`), the result completes once that task
    /// has: failed or cancelled as it did, or succeeded with that task, completed, as its value.
    /// To continue with the returned task's value, use `flatMap`.
    @inlinable
    @discardableResult
    public func then<U: Sendable>(
        on executor: (any AsyncTaskExecutor)? = nil,
        token: CancellationToken = .none,
        _ transform: @escaping @Sendable (Success) throws -> U
    ) -> any AsyncTask<U> {
        thenStep(on: executor ?? backend.defaultExecutor, token: token, transform)
    }

    /// Turns a failure into a value (or another error); success and cancellation pass through (C3.3).
    @inlinable
    @discardableResult
    public func recover(
        on executor: (any AsyncTaskExecutor)? = nil,
        _ handler: @escaping @Sendable (any Error) throws -> Success
    ) -> any AsyncTask<Success> {
        recover(on: executor ?? backend.defaultExecutor, token: .none, handler)
    }

    /// `recover` on the default executor, under `token` (C4.3).
    @inlinable
    @discardableResult
    public func recover(
        token: CancellationToken,
        _ handler: @escaping @Sendable (any Error) throws -> Success
    ) -> any AsyncTask<Success> {
        recover(on: backend.defaultExecutor, token: token, handler)
    }

    /// Turns a failure into another task's outcome; success and cancellation pass through (C2.6, C3.3).
    @inlinable
    @discardableResult
    public func recoverTask(
        on executor: (any AsyncTaskExecutor)? = nil,
        _ handler: @escaping @Sendable (any Error) throws -> any AsyncTask<Success>
    ) -> any AsyncTask<Success> {
        recoverTask(on: executor ?? backend.defaultExecutor, token: .none, handler)
    }

    /// `recoverTask` on the default executor, under `token` (C4.3).
    @inlinable
    @discardableResult
    public func recoverTask(
        token: CancellationToken,
        _ handler: @escaping @Sendable (any Error) throws -> any AsyncTask<Success>
    ) -> any AsyncTask<Success> {
        recoverTask(on: backend.defaultExecutor, token: token, handler)
    }

    /// JS-style `catch` (HNTask's): the same as `recover`. A handler returning a task is `recoverTask`.
    @inlinable
    public func `catch`(
        on executor: (any AsyncTaskExecutor)? = nil,
        token: CancellationToken = .none,
        _ handler: @escaping @Sendable (any Error) throws -> Success
    ) -> any AsyncTask<Success> {
        recover(on: executor ?? backend.defaultExecutor, token: token, handler)
    }

    /// Runs `body` on every outcome on the default executor, then passes the original outcome
    /// on, unless `body` throws: then its error (or cancellation, for `CancellationError`)
    /// replaces the outcome (C3.3). `finally(on:_:)` names the executor.
    @inlinable
    @discardableResult
    public func finally(_ body: @escaping @Sendable (Completion<Success>) throws -> Void) -> any AsyncTask<Success> {
        finally(on: backend.defaultExecutor, body)
    }

    /// HNTask's `finally` returning a task (named like `continueWithTask`), on the default
    /// executor: the result completes once that task has, with the original outcome, unless that
    /// task failed or was cancelled: then with its outcome (C3.3). `finallyTask(on:_:)` names the
    /// executor.
    @inlinable
    @discardableResult
    public func finallyTask(
        _ body: @escaping @Sendable (Completion<Success>) throws -> any AsyncTask<Void>
    ) -> any AsyncTask<Success> {
        finallyTask(on: backend.defaultExecutor, body)
    }

    /// A task that succeeds with `()` when this one succeeds: for joining tasks of mixed types.
    @inlinable
    public func asVoid() -> any AsyncTask<Void> {
        map(on: backend.inlineExecutor, token: .none) { _ in () }
    }
}
