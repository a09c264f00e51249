/// The default continuation algorithms, written once over `whenComplete` and a source.
extension AsyncTask {
    @_disfavoredOverload
    @discardableResult
    public func continueWith<U: Sendable>(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ body: @escaping @Sendable (Completion<Success>) throws -> U
    ) -> any AsyncTask<U> {
        let source = backend.sourceWithoutOrigin(of: U.self)
        let gate = StartGate.make(for: source, token: token)
        whenComplete(on: executor) { completion in
            gate.runBody(on: source, token: token) { try body(completion) }
        }
        return source.task
    }

    @_disfavoredOverload
    @discardableResult
    public func continueWithTask<U: Sendable>(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ body: @escaping @Sendable (Completion<Success>) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        let source = backend.sourceWithoutOrigin(of: U.self)
        let gate = StartGate.make(for: source, token: token)
        let inline = backend.inlineExecutor
        whenComplete(on: executor) { completion in
            guard gate.start(source, token: token) else { return }
            source.adoptOutcome(of: { try body(completion) }, inline: inline)
        }
        return source.task
    }
}

extension CompletionSource {
    /// Completes with the outcome of the task `body` returns, whatever it is (C2.6), or with what
    /// `body` throws (C3.1, C3.2). `inline` is the backend's inline executor.
    func adoptOutcome(of body: () throws -> any AsyncTask<Success>, inline: any AsyncTaskExecutor) {
        switch Completion(catching: body) {
        case .success(let inner):
            inner.whenComplete(on: inline) { self.tryComplete($0) }
        case .failure(let error):
            tryComplete(.failure(error))
        case .cancelled:
            tryComplete(.cancelled)
        }
    }
}

/// The conveniences (C9.1). Each call form has exactly one candidate, so that a chain of them
/// type-checks in time linear in its length, whatever its closures: the executor may be left
/// out (the default executor) or named, and the token left out (`.none`) or named. Naming both
/// is the requirement itself. The forms with an isolated body, for the main executor or a pinned
/// actor, are in AsyncTask+Isolated.swift (C9.10). Each forwards to the requirement, so a
/// backend's override is used.
extension AsyncTask {
    /// `continueWith` with defaults (Bolts' `continueWith`, .NET's `ContinueWith(scheduler:)`):
    /// `task.continueWith(on: executor) { outcome in ... }`. The body returns a value; a body
    /// returning a task is `continueWithTask` (C2.6).
    @inlinable
    @discardableResult
    public func continueWith<U: Sendable>(
        on executor: (any AsyncTaskExecutor)? = nil,
        _ body: @escaping @Sendable (Completion<Success>) throws -> U
    ) -> any AsyncTask<U> {
        continueWith(on: executor ?? backend.defaultExecutor, token: .none, body)
    }

    /// `continueWith` on the default executor, under `token` (C4.3).
    @inlinable
    @discardableResult
    public func continueWith<U: Sendable>(
        token: CancellationToken,
        _ body: @escaping @Sendable (Completion<Success>) throws -> U
    ) -> any AsyncTask<U> {
        continueWith(on: backend.defaultExecutor, token: token, body)
    }

    /// `continueWithTask` with defaults (BFTask's `continueWithBlock` returning a task, seed
    /// 002's `continueFor`): the result takes the outcome of the task `body` returns (C2.6).
    @inlinable
    @discardableResult
    public func continueWithTask<U: Sendable>(
        on executor: (any AsyncTaskExecutor)? = nil,
        _ body: @escaping @Sendable (Completion<Success>) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        continueWithTask(on: executor ?? backend.defaultExecutor, token: .none, body)
    }

    /// `continueWithTask` on the default executor, under `token` (C4.3).
    @inlinable
    @discardableResult
    public func continueWithTask<U: Sendable>(
        token: CancellationToken,
        _ body: @escaping @Sendable (Completion<Success>) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        continueWithTask(on: backend.defaultExecutor, token: token, body)
    }

    /// Registers `body` on the default executor; see `whenComplete(on:_:)`.
    @inlinable
    public func whenComplete(_ body: @escaping @Sendable (Completion<Success>) -> Void) {
        whenComplete(on: backend.defaultExecutor, body)
    }
}
