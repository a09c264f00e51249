extension TaskBackend {
    /// Succeeds no earlier than `delay` from now (C5.4). If `token` is cancelled first, the task
    /// completes cancelled at once and the timer is released.
    @_disfavoredOverload
    public func delay(_ delay: Duration, token: CancellationToken) -> any AsyncTask<Void> {
        let source = sourceWithoutOrigin(of: Void.self)
        if token.isCancellationRequested {
            source.tryCancel()
            return source.task
        }
        let timer = schedule(after: delay) { source.trySucceed(()) }
        let registration = token.register {
            if source.tryCancel() { timer.dispose() }
        }
        source.task.whenComplete(on: inlineExecutor) { _ in registration.dispose() }
        return source.task
    }
}

extension TaskBackend {
    /// `delay(_:token:)` with no token.
    @inlinable
    public func delay(_ delay: Duration) -> any AsyncTask<Void> {
        self.delay(delay, token: .none)
    }
}

extension AsyncTask {
    /// Completes with this task's outcome if it arrives within `delay`, otherwise fails with
    /// `TaskError.timedOut` (C5.4). This task is left alone either way; the timer is released as
    /// soon as the result completes.
    @_disfavoredOverload
    public func timeout(after delay: Duration) -> any AsyncTask<Success> {
        let backend = self.backend
        let source = backend.sourceWithoutOrigin(of: Success.self)
        let timer = backend.schedule(after: delay) {
            source.tryFail(TaskError.timedOut(delay))
        }
        whenComplete(on: backend.inlineExecutor) { completion in
            if source.tryComplete(completion) { timer.dispose() }
        }
        return source.task
    }
}
