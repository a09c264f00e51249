import TaskAPI

/// The inline executor (C7.2): runs a job on the calling thread before `execute` returns, through
/// the thread's trampoline, so nested hand-offs run in a loop, not a recursion (C2.7). A job
/// handed over while the thread is already running inline work (or draining a task actor) is
/// queued behind it and run by the outermost call.
final class ActorsInlineExecutor: Executor {
    func execute(_ job: @escaping @Sendable () -> Void) {
        ThreadState.current.submit(job)
    }
}
