import TaskAPI

/// GCD's own continuation algorithms: the same semantics as TaskAPI's defaults (C2.6, C3.1–C3.3,
/// C4.3), with the derived task's job registered directly on the erased core. One allocation for
/// the derived task and one for the job, instead of four, and no `Completion<T>` conversion on the
/// pass-through paths.
extension GCDTask {
    func continueWith<U: Sendable>(
        on executor: any Executor,
        token: CancellationToken,
        _ body: @escaping @Sendable (Completion<T>) throws -> U
    ) -> any AsyncTask<U> {
        let child = GCDTask<U>(owner: owner)
        let gate = StartGate.make(for: child, token: token)
        register(GCDJob(executor: executor) { outcome in
            guard gate.start(child, token: token) else { return }
            child.settle { try body(outcome.typed()) }
        })
        return child
    }

    func continueWithTask<U: Sendable>(
        on executor: any Executor,
        token: CancellationToken,
        _ body: @escaping @Sendable (Completion<T>) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        let child = GCDTask<U>(owner: owner)
        let gate = StartGate.make(for: child, token: token)
        register(GCDJob(executor: executor) { outcome in
            guard gate.start(child, token: token) else { return }
            child.adopt { try body(outcome.typed()) }
        })
        return child
    }

    func map<U: Sendable>(
        on executor: any Executor,
        token: CancellationToken,
        _ transform: @escaping @Sendable (T) throws -> U
    ) -> any AsyncTask<U> {
        let child = GCDTask<U>(owner: owner)
        let gate = StartGate.make(for: child, token: token)
        register(GCDJob(executor: executor) { outcome in
            guard gate.start(child, token: token) else { return }
            guard case .success(let value) = outcome else {
                _ = child.complete(outcome)   // failure or cancellation, unchanged (C3.3)
                return
            }
            child.settle { try transform(unbox(value)) }
        })
        return child
    }

    func flatMap<U: Sendable>(
        on executor: any Executor,
        token: CancellationToken,
        _ transform: @escaping @Sendable (T) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        let child = GCDTask<U>(owner: owner)
        let gate = StartGate.make(for: child, token: token)
        register(GCDJob(executor: executor) { outcome in
            guard gate.start(child, token: token) else { return }
            guard case .success(let value) = outcome else {
                _ = child.complete(outcome)   // failure or cancellation, unchanged (C3.3)
                return
            }
            child.adopt { try transform(unbox(value)) }
        })
        return child
    }

    /// Completes with what `body` returns or throws (C3.1, C3.2).
    func settle(_ body: () throws -> T) {
        do {
            _ = complete(.success(try body()))
        } catch is CancellationError {
            _ = complete(.cancelled)
        } catch {
            _ = complete(.failure(error))
        }
    }

    /// Completes with the outcome of the task `body` returns, or with what it throws (C2.6).
    func adopt(_ body: () throws -> any AsyncTask<T>) {
        let inner: any AsyncTask<T>
        do {
            inner = try body()
        } catch is CancellationError {
            _ = complete(.cancelled)
            return
        } catch {
            _ = complete(.failure(error))
            return
        }
        if let core = inner as? GCDTaskCore {
            core.register(GCDJob(executor: owner.inlineExecutor) { _ = self.complete($0) })
        } else {
            inner.whenComplete(on: owner.inlineExecutor) { _ = self.tryComplete($0) }
        }
    }
}

/// `value` as a `T`; a value of another type (a backend bug) throws instead of trapping.
@inline(__always)
func unbox<T>(_ value: any Sendable) throws -> T {
    guard let typed = value as? T else {
        throw CompletionTypeMismatch(expected: "\(T.self)", found: "\(type(of: value))")
    }
    return typed
}
