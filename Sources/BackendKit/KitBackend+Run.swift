import Synchronization
import TaskAPI

extension KitBackend {
    /// Starts `body` at once on `executor` (C3.1, C3.2, C4.3): TaskAPI's default `run`, on the
    /// kit's task. The job the executor gets holds an `AbandonOnRelease`, the task's writing
    /// side: an executor that drops the job without running it releases it, which fails the task
    /// with `TaskError.abandoned` (C8.3), exactly as a dropped source does.
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
        // `nil` when the token can never be cancelled (the common case).
        let startGuard = token.canBeCancelled ? StartGuard(for: task, token: token) : nil
        let abandon = AbandonOnRelease(task)
        executor.execute {
            abandon.disarm()
            // Only the call that moves the task from pending to running starts the body (C4.3;
            // an executor that wrongly runs a job twice starts it once).
            guard task.startBody(startGuard) else { return }
            task.settle { try body(token) }
        }
        return task
    }
}

/// Fails a task with `TaskError.abandoned` when released by a `run` job that never ran (C8.3): an
/// executor that drops the job without running it then fails the task instead of leaving it
/// pending forever. A job that ran disarms it first: the body completes the task, or the token
/// cancelled it, and a token handler that won the start gate may still be about to complete it
/// as cancelled, which an abandonment must not overtake. Not generic: no runtime metadata lookup
/// per `run`, unlike a typed holder of the body.
final class AbandonOnRelease: Sendable {
    private let task: TaskCore
    private let ran = Atomic<Bool>(false)

    init(_ task: TaskCore) {
        self.task = task
    }

    /// The job is running: its release abandons nothing.
    func disarm() {
        ran.store(true, ordering: .relaxed)
    }

    deinit {
        // The releasing thread sees the job's store: releasing the last reference orders it.
        if !ran.load(ordering: .relaxed) { _ = task.complete(.failure(TaskError.abandoned)) }
    }
}
