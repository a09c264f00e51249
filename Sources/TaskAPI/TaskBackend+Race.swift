extension TaskBackend {
    /// Completes with the first outcome among `tasks`, of any kind (C5.3).
    /// Empty input fails at once with `TaskError.emptyInput`.
    @_disfavoredOverload
    public func race<T: Sendable>(_ tasks: [any AsyncTask<T>]) -> any AsyncTask<T> {
        if tasks.isEmpty { return completed(.failure(TaskError.emptyInput("race"))) }
        let source = sourceWithoutOrigin(of: T.self)
        for task in tasks {
            task.whenComplete(on: inlineExecutor) { source.tryComplete($0) }
        }
        return source.task
    }

    /// Succeeds with the first success among `tasks`; if none succeeds, fails with an
    /// `AggregateError` of every input's error in input order, a cancelled input giving a
    /// `CancellationError` (C5.3). Empty input fails at once with `TaskError.emptyInput`.
    @_disfavoredOverload
    public func any<T: Sendable>(_ tasks: [any AsyncTask<T>]) -> any AsyncTask<T> {
        if tasks.isEmpty { return completed(.failure(TaskError.emptyInput("any"))) }
        let source = sourceWithoutOrigin(of: T.self)
        let errors = Collector<any Error>(count: tasks.count)
        for index in tasks.indices {
            tasks[index].whenComplete(on: inlineExecutor) { completion in
                switch completion {
                case .success(let value):
                    if errors.finish() { source.trySucceed(value) }
                case .failure, .cancelled:
                    if let all = errors.record(completion.error ?? CancellationError(), at: index) {
                        source.tryFail(AggregateError(all))
                    }
                }
            }
        }
        return source.task
    }
}
