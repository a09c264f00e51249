import TaskAPI

extension ReferenceBackend {
    /// `runAsync` as TaskAPI's default does it (C9.6): a token cancelled before the body starts
    /// cancels the task at once and the body never runs; a later one cancels the Swift task.
    /// `.runAsyncIgnoresToken` starts the body whatever the token says, and never bridges it.
    func runAsync<T: Sendable>(
        token: CancellationToken,
        _ body: @escaping @Sendable () async throws -> T
    ) -> any AsyncTask<T> {
        let source = makeSource(of: T.self)
        if mutation == .runAsyncIgnoresToken {
            Task.detached {
                source.tryStart()
                source.tryComplete(await Completion.capturing(body))
            }
            return source.task
        }
        let gate = StartGate.make(for: source, token: token)
        if token.isCancellationRequested {
            source.tryCancel()
            return source.task
        }
        let swiftTask = Task.detached {
            guard gate.start(source, token: token) else { return }
            source.tryComplete(await Completion.capturing(body))
        }
        guard token.canBeCancelled else { return source.task }
        let registration = token.register { swiftTask.cancel() }
        source.task.whenComplete(on: inlineExecutor) { _ in registration.dispose() }
        return source.task
    }
}
