import TaskAPI

/// The inline executor (C7.2) of every backend built on the kit: runs a job on the calling
/// thread before `execute` returns, through the thread's trampoline, so nested hand-offs run in a
/// loop, not a recursion (C2.7).
public final class InlineExecutor: AsyncTaskExecutor {
    /// The one instance (the initializer is private): the kit recognises it by its type.
    public static let shared = InlineExecutor()

    private init() {}

    public func execute(_ job: @escaping @Sendable () -> Void) {
        var work = ThreadRuntime.Work.job(job)
        ThreadRuntime.trampolineHere(&work)
    }
}
