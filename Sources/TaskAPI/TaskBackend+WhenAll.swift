extension TaskBackend {
    /// Succeeds with every input's value in input order, whatever the completion order (C5.1).
    /// The first failure or cancellation among the inputs completes it at once with that outcome.
    /// `whenAll([])` succeeds with `[]` at once. Holds no input once complete (C5.5).
    @_disfavoredOverload
    public func whenAll<T: Sendable>(_ tasks: [any AsyncTask<T>]) -> any AsyncTask<[T]> {
        if tasks.isEmpty { return completed(.success([])) }
        let source = sourceWithoutOrigin(of: [T].self)
        let collector = Collector<T>(count: tasks.count)
        // Indices, not `enumerated()`: unspecialized, its iterator costs metadata lookups per input.
        for index in tasks.indices {
            tasks[index].whenComplete(on: inlineExecutor) { completion in
                switch completion {
                case .success(let value):
                    if let all = collector.record(value, at: index) { source.trySucceed(all) }
                case .failure(let error):
                    if collector.finish() { source.tryFail(error) }
                case .cancelled:
                    if collector.finish() { source.tryCancel() }
                }
            }
        }
        return source.task
    }

    /// Waits for every input and succeeds with every outcome, in input order (C5.2).
    /// `whenAllSettled([])` succeeds with `[]` at once.
    @_disfavoredOverload
    public func whenAllSettled<T: Sendable>(_ tasks: [any AsyncTask<T>]) -> any AsyncTask<[Completion<T>]> {
        if tasks.isEmpty { return completed(.success([])) }
        let source = sourceWithoutOrigin(of: [Completion<T>].self)
        let collector = Collector<Completion<T>>(count: tasks.count)
        for index in tasks.indices {
            tasks[index].whenComplete(on: inlineExecutor) { completion in
                if let all = collector.record(completion, at: index) { source.trySucceed(all) }
            }
        }
        return source.task
    }

    /// Succeeds with `()` once every input succeeded; fails fast like `whenAll` (C5.1).
    /// For inputs of mixed types: `whenAll(voids: [a.asVoid(), b.asVoid()])`.
    public func whenAll(voids tasks: [any AsyncTask<Void>]) -> any AsyncTask<Void> {
        whenAll(tasks).map(on: inlineExecutor) { _ in () }
    }
}

extension TaskBackend {
    /// Joins tasks of different types into a tuple, in input order:
    /// `let (n, s) = try backend.whenAll(intTask, stringTask).get()` (C9.1). Fails fast exactly
    /// like `whenAll(_:)` on an array (C5.1): the first failure or cancellation among the inputs
    /// completes it at once with that outcome. Written over the array `whenAll`, so a backend's
    /// override of that is used.
    public func whenAll<each T: Sendable>(
        _ tasks: repeat any AsyncTask<each T>
    ) -> any AsyncTask<(repeat each T)> {
        var erased: [any AsyncTask<any Sendable>] = []
        for task in repeat each tasks {
            erased.append(task.map(on: inlineExecutor, token: .none) { $0 as any Sendable })
        }
        return whenAll(erased).map(on: inlineExecutor, token: .none) { values in
            var iterator = values.makeIterator()
            return (repeat try Self.unboxNext(&iterator, as: (each T).self))
        }
    }

    /// An array literal of tasks of different types has no element type; this overload turns
    /// the type checker's "failed to produce diagnostic" into a message saying what to write.
    @available(
        *, unavailable,
        message:
            "tasks of different types: join them as a tuple with whenAll(a, b), or as voids with whenAll(voids: [a.asVoid(), b.asVoid()])"
    )
    public func whenAll(_ tasks: [any AsyncTask]) -> any AsyncTask<Void> {
        whenAll(voids: tasks.map { $0.asVoid() })
    }

    /// The next boxed value as a `V`; a missing or mistyped value (a backend bug) throws
    /// `CompletionTypeMismatch` instead of trapping.
    @usableFromInline
    static func unboxNext<V>(_ iterator: inout IndexingIterator<[any Sendable]>, as type: V.Type) throws -> V {
        guard let value = iterator.next() else {
            throw CompletionTypeMismatch(expected: "\(V.self)", found: "no value")
        }
        guard let typed = value as? V else {
            throw CompletionTypeMismatch(expected: "\(V.self)", found: "\(Swift.type(of: value))")
        }
        return typed
    }
}
