import TaskAPI

extension ActorsBackend {
    /// Runs an async `body` as a Swift task on the default executor's threads, and returns its
    /// task. The task completes with what `body` returns or throws; a thrown `CancellationError`
    /// completes it cancelled (C3.1, C3.2).
    ///
    /// Cancellation crosses the bridge: if `token` is cancelled before `body` starts, `body`
    /// never runs and the task completes cancelled at once (C4.3); once `body` runs, cancelling
    /// `token` cancels the Swift task, so `Task.isCancelled`, `Task.checkCancellation()` and
    /// `Task.sleep` inside `body` see it.
    ///
    /// The actors backend's own `runAsync` requirement (C9.6): its pool is a `TaskExecutor`
    /// already, so it needs no adapter, unlike TaskAPI's default.
    public func runAsync<T: Sendable>(
        token: CancellationToken = .none,
        _ body: @escaping @Sendable () async throws -> T
    ) -> any AsyncTask<T> {
        runAsync(token: token, preferring: poolExecutor, body)
    }
}
