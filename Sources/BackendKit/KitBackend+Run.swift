import TaskAPI

extension KitBackend {
    /// Starts `body` at once on `executor` (C3.1, C3.2, C4.3): TaskAPI's default `run`, on the
    /// kit's task. The job the executor gets holds a `RunJob`, the task's writing side: an
    /// executor that drops the job without running it releases the last reference to it, which
    /// fails the task with `TaskError.abandoned` (C8.3), exactly as a dropped source does.
    ///
    /// Why not TaskAPI's default: it completes the task through `any CompletionSource<T>` with a
    /// `Completion<T>`, and in unspecialized code every generic type costs a runtime metadata
    /// lookup; a fan-out of 100,000 bodies spent about a fifth of its instructions there. Here
    /// the value goes from the body straight into the task's slot.
    @_disfavoredOverload
    public func run<T: Sendable>(
        on executor: any Executor,
        token: CancellationToken,
        _ body: @escaping @Sendable (CancellationToken) throws -> T
    ) -> any AsyncTask<T> {
        let task = KitTask<T>(owner: self)
        let job = RunJob(task: task, token: token, body: body)
        executor.execute { job.run() }
        return task
    }
}

/// One `run` body and its task, until the body has run: whoever runs the job starts the body;
/// if the job is released without running, the task fails with `TaskError.abandoned` (C8.3).
final class RunJob<T: Sendable>: @unchecked Sendable {
    // @unchecked: `body` is written in init and read and cleared only by the `run` call that won
    // the task's start (a pending-to-running transition under the task's lock, so at most one
    // call, even from an executor that wrongly runs a job twice); `task`, `token` and
    // `startGuard` are `let`s of Sendable types.
    private let task: KitTask<T>
    private let token: CancellationToken
    /// `nil` when the token can never be cancelled (the common case).
    private let startGuard: StartGuard?
    private var body: (@Sendable (CancellationToken) throws -> T)?

    init(task: KitTask<T>, token: CancellationToken, body: @escaping @Sendable (CancellationToken) throws -> T) {
        self.task = task
        self.token = token
        self.body = body
        startGuard = token.canBeCancelled ? StartGuard(for: task, token: token) : nil
    }

    deinit {
        // A no-op once the task is completed (C1.1): the body ran, or the token cancelled it.
        _ = task.complete(.failure(TaskError.abandoned))
    }

    /// Starts the body unless the token cancelled the task first (C4.3), and completes the task
    /// with what it returns or throws (C3.1, C3.2).
    func run() {
        guard task.startBody(startGuard), let body else { return }
        self.body = nil   // C8.1: the closure and its captures go as soon as it has run
        let token = token
        task.settle { try body(token) }
    }
}
