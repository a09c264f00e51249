/// `then`, the promise word (seed 001's HNTask, JavaScript's `then`): a value form that waits for
/// a task its body returns, as every promise library's `then` does (C2.6). Its task completes
/// once that task has: failed or cancelled as it, or succeeded with it, now completed, as its
/// value. Its type is still the value form's, `any AsyncTask<any AsyncTask<U>>`: `flatMap` takes
/// the inner task's value (and where `any AsyncTask<U>` is expected the compiler names it).
extension AsyncTask {
    /// `then`'s one algorithm, behind every `then` call form (C2.6, C3.3, C4.3). A body whose
    /// value cannot be a task (see `ReturnedTask.mayBeTask`) is `map` itself, at `map`'s cost;
    /// otherwise the body runs as `continueWithTask`'s, and the task it continues with is
    /// `settling(with:)` its value. Failures and cancellation pass through unchanged, and the
    /// token guards the body's start, as for `map`. Inlinable, so that a call site's own
    /// specialization decides the path at compile time.
    @inlinable
    func thenStep<U: Sendable>(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ transform: @escaping @Sendable (Success) throws -> U
    ) -> any AsyncTask<U> {
        guard ReturnedTask.mayBeTask(U.self) else { return map(on: executor, token: token, transform) }
        let backend = self.backend
        return continueWithTask(on: executor, token: token) { completion in
            switch completion {
            case .success(let value): return backend.settling(with: try transform(value))
            case .failure(let error): return backend.completed(.failure(error))
            case .cancelled: return backend.completed(.cancelled)
            }
        }
    }

    /// Calls `body` on `executor` once this task has completed, with its outcome without its
    /// value: what a caller holding the task as `any AsyncTask`, its value's type unknown, can
    /// wait for.
    func whenSettled(on executor: any AsyncTaskExecutor, _ body: @escaping @Sendable (Completion<Void>) -> Void) {
        whenComplete(on: executor) { outcome in
            switch outcome {
            case .success: body(.success(()))
            case .failure(let error): body(.failure(error))
            case .cancelled: body(.cancelled)
            }
        }
    }

    /// Whether `type` is this task's own type as call sites hold it, `any AsyncTask<Success>`,
    /// or its concrete type.
    func isHeld(as type: Any.Type) -> Bool {
        type == (any AsyncTask<Success>).self || type == Self.self
    }
}

extension TaskBackend {
    /// A task that succeeds with `value`: at once, or, if `value` is a task (C2.6), once that
    /// task has completed, and failed or cancelled as it did.
    @usableFromInline
    func settling<U: Sendable>(with value: U) -> any AsyncTask<U> {
        guard let returned = ReturnedTask.task(in: value) else { return completed(.success(value)) }
        let source = sourceWithoutOrigin(of: U.self)
        returned.whenSettled(on: inlineExecutor) { outcome in
            switch outcome {
            case .success: source.tryComplete(.success(value))
            case .failure(let error): source.tryComplete(.failure(error))
            case .cancelled: source.tryComplete(.cancelled)
            }
        }
        return source.task
    }
}

/// Whether a body's value is a task (C2.6): a value whose type is `any AsyncTask<T>` (or a
/// task's concrete class), not an optional or a collection of tasks, which are values like any
/// other.
@usableFromInline
enum ReturnedTask {
    /// Whether a value of type `U` may be a task: a task is a class instance, held in a
    /// class-bound existential (two words: the reference and its one witness table) or, of a
    /// concrete task class, in one word. Any other size is a value, and `then` on it is `map`,
    /// at `map`'s cost; in code specialized for `U` the test is a constant.
    @inlinable
    static func mayBeTask<U>(_ type: U.Type) -> Bool {
        let size = MemoryLayout<U>.size
        return size == MemoryLayout<any AsyncTask<Void>>.size || (size == MemoryLayout<AnyObject>.size && type is AnyObject.Type)
    }

    /// `value` as a task, if its type is a task type.
    static func task<U>(in value: U) -> (any AsyncTask)? {
        guard mayBeTask(U.self), let task = value as? any AsyncTask, task.isHeld(as: U.self) else { return nil }
        return task
    }
}
