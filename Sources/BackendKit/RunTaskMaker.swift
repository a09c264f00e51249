import TaskAPI

/// Makes a `run`'s task for one `T` and schedules its body: what `run` calls once it has found
/// the maker of its `T` (`RunTaskMakers`). The one subclass, `RunTaskMakerOf<RunTask<T>>`, makes
/// the task with no runtime lookup: in the unspecialized code of `run`, `RunTask<T>(...)` would
/// look up the class's metadata, and returning it as `any AsyncTask<T>` the conformance's
/// witness table; the subclass has both among its generic arguments, in its own metadata,
/// which the call reaches through the maker's class pointer.
class RunTaskMaker<T: Sendable>: @unchecked Sendable {
    // @unchecked: no stored state.

    /// A pending `RunTask<T>` for `body`, its job handed to `executor` (`RunJob.schedule`).
    func make(
        owner: any KitBackend, token: borrowing CancellationToken, on executor: any AsyncTaskExecutor,
        _ body: @escaping @Sendable (CancellationToken) throws -> T
    ) -> any AsyncTask<T> {
        preconditionFailure("RunTaskMaker: \(type(of: self)) made a task without overriding make")
    }
}

/// A `run`'s task as `RunTaskMakerOf` makes it: `RunTask<Success>`, its only conforming type.
/// A protocol, not the class itself as a superclass constraint, so that the maker's generic
/// signature carries the witness table of `AsyncTask` (the base of this one's): a class
/// constraint would leave the runtime to look it up at each erasure.
protocol RunTaskMaking: AsyncTask {
    /// A pending task for `body`, its job handed to `executor` (`RunJob.schedule`).
    static func started(
        owner: any KitBackend, token: borrowing CancellationToken, on executor: any AsyncTaskExecutor,
        _ body: @escaping @Sendable (CancellationToken) throws -> Success
    ) -> Self
}

/// The maker of `Made`, which is `RunTask<T>`.
final class RunTaskMakerOf<Made: RunTaskMaking>: RunTaskMaker<Made.Success>, @unchecked Sendable {
    // @unchecked: no stored state.

    override func make(
        owner: any KitBackend, token: borrowing CancellationToken, on executor: any AsyncTaskExecutor,
        _ body: @escaping @Sendable (CancellationToken) throws -> Made.Success
    ) -> any AsyncTask<Made.Success> {
        // `Made`'s metadata and its `AsyncTask` witness table are this class's generic arguments:
        // the task is made from the one and erased with the other, with no lookup.
        Made.started(owner: owner, token: token, on: executor, body)
    }
}
extension RunTask: RunTaskMaking {}
