import Dispatch
import TaskAPI

extension ReferenceBackend {
    /// `runAsync` as TaskAPI's default does it (C9.6): a token cancelled before the body starts
    /// cancels the task at once and the body never runs; a later one cancels the Swift task.
    /// `.runAsyncIgnoresToken` starts the body whatever the token says, and never bridges it.
    func runAsync<T: Sendable>(
        token: CancellationToken,
        _ body: @escaping @Sendable () async throws -> T
    ) -> any AsyncTask<T> {
        if mutation == .runAsyncIgnoresToken {
            let source = makeSource(of: T.self)
            Task.detached(executorPreference: ReferenceTaskExecutor.shared) {
                source.tryStart()
                source.tryComplete(await Completion.capturing(body))
            }
            return source.task
        }
        return runAsync(token: token, preferring: ReferenceTaskExecutor.shared, body)
    }
}

/// The reference's default queue as a Swift `TaskExecutor`: `runAsync` bodies run on the
/// backend's threads, not on Swift's cooperative pool, which blocking tests may hold (C9.6).
final class ReferenceTaskExecutor: TaskExecutor {
    static let shared = ReferenceTaskExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
