/// The default continuation algorithms, written once over `whenComplete` and a source.
extension AsyncTask {
    public func continueWith<U: Sendable>(
        on executor: any Executor,
        token: CancellationToken,
        _ body: @escaping @Sendable (Completion<Success>) throws -> U
    ) -> any AsyncTask<U> {
        let source = backend.makeSource(of: U.self)
        let gate = StartGate.make(for: source, token: token)
        whenComplete(on: executor) { completion in
            gate.runBody(on: source, token: token) { try body(completion) }
        }
        return source.task
    }

    public func continueWithTask<U: Sendable>(
        on executor: any Executor,
        token: CancellationToken,
        _ body: @escaping @Sendable (Completion<Success>) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        let source = backend.makeSource(of: U.self)
        let gate = StartGate.make(for: source, token: token)
        let inline = backend.inlineExecutor
        whenComplete(on: executor) { completion in
            guard gate.start(source, token: token) else { return }
            switch Completion(catching: { try body(completion) }) {
            case .success(let inner):
                // C2.6: the outer task takes the inner task's outcome, whatever it is.
                inner.whenComplete(on: inline) { source.tryComplete($0) }
            case .failure(let error):
                source.tryComplete(.failure(error))
            case .cancelled:
                source.tryComplete(.cancelled)
            }
        }
        return source.task
    }
}

/// The conveniences: an optional executor (`nil`: the backend's default executor) and a token
/// that defaults to `.none`, as for `map` and `then` (C9.1). Each forwards to the requirement.
extension AsyncTask {
    /// `continueWith` with defaults (Bolts' `continueWith`, .NET's `ContinueWith(scheduler:)`):
    /// `task.continueWith(on: ui) { outcome in ... }`.
    @inlinable
    public func continueWith<U: Sendable>(
        on executor: (any Executor)? = nil,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (Completion<Success>) throws -> U
    ) -> any AsyncTask<U> {
        continueWith(on: executor ?? backend.defaultExecutor, token: token, body)
    }

    /// `continueWithTask` with defaults (seed 002's `continueFor`): the result takes the outcome
    /// of the task `body` returns (C2.6).
    @inlinable
    public func continueWithTask<U: Sendable>(
        on executor: (any Executor)? = nil,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (Completion<Success>) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        continueWithTask(on: executor ?? backend.defaultExecutor, token: token, body)
    }

    /// Registers `body` on the default executor; see `whenComplete(on:_:)`.
    @inlinable
    public func whenComplete(_ body: @escaping @Sendable (Completion<Success>) -> Void) {
        whenComplete(on: backend.defaultExecutor, body)
    }
}
