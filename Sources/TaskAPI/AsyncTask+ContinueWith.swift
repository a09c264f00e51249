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

extension AsyncTask {
    /// `continueWith` on the default executor (Bolts' `continueWith`, .NET's `ContinueWith`).
    @inlinable
    public func continueWith<U: Sendable>(
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (Completion<Success>) throws -> U
    ) -> any AsyncTask<U> {
        continueWith(on: backend.defaultExecutor, token: token, body)
    }

    /// `continueWithTask` on the default executor (seed 002's `continueFor`).
    @inlinable
    public func continueWithTask<U: Sendable>(
        token: CancellationToken = .none,
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
