import TaskAPI

/// The source a kit backend hands out from `makeSource`: the writing side of a `KitTask`.
///
/// It holds the task; the task does not hold it. When the last reference to a source goes away
/// while its task is still pending, nobody can complete the task any more, so the source fails
/// it with `TaskError.abandoned` (C8.3): waiters wake and continuations run, instead of hanging
/// forever. Derived tasks (`map`, `continueWith`) are completed by the kit itself, have no
/// source, and pay nothing for this.
public final class KitSource<T: Sendable>: CompletionSource {
    public typealias Success = T

    /// The task this source completes.
    public let base: KitTask<T>

    /// A source for a new pending task of `owner`.
    public init(owner: any KitBackend) {
        base = KitTask<T>(owner: owner)
    }

    deinit {
        // A no-op if the task is completed (C1.1); otherwise it can never be completed now.
        base.tryComplete(.failure(TaskError.abandoned))
    }

    public var task: any AsyncTask<T> { base }

    @discardableResult
    public func tryComplete(_ completion: Completion<T>) -> Bool {
        base.tryComplete(completion)
    }

    @discardableResult
    public func tryStart() -> Bool {
        base.tryStart()
    }
}
