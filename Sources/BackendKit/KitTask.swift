import TaskAPI

/// The task of every backend built on the kit, which is also its own completion source.
///
/// The typed face of `TaskCore`: it converts between `Completion<T>` and the core's erased
/// outcomes, and does nothing else. All members are safe from any thread. A backend makes one
/// with `KitTask<T>(owner: backend)` (pending) or `KitTask<T>(owner:completed:)`.
public class KitTask<T: Sendable>: TaskCore, AsyncTask, CompletionSource, @unchecked Sendable {
    // @unchecked: restated from TaskCore; this class adds no stored property. Not final: the
    // continuation nodes (KitTask+Continuations.swift) are derived tasks that carry their body.
    public typealias Success = T

    /// A pending task (C1.1).
    public override init(owner: any KitBackend) {
        super.init(owner: owner)
    }

    /// An already-completed task (C1.4).
    public init(owner: any KitBackend, completed completion: Completion<T>) {
        super.init(owner: owner, completed: completion.erased)
    }

    public var backend: any TaskBackend { owner }
    public var task: any AsyncTask<T> { self }
    public var completion: Completion<T>? { erasedCompletion?.typed() }

    @discardableResult
    public final func tryComplete(_ completion: Completion<T>) -> Bool {
        complete(completion.erased)
    }

    public final func whenComplete(on executor: any Executor, _ body: @escaping @Sendable (Completion<T>) -> Void) {
        register(Job(executor: executor) { body($0.typed()) })
    }

    public final func wait() -> Completion<T> {
        waitErased().typed()
    }

    public final func wait(timeout: Duration) -> Completion<T>? {
        waitErased(timeout: timeout)?.typed()
    }
}
