import TaskAPI

/// The source the reference backend hands out from `makeSource`: the writing side of a
/// `ReferenceTask`, as BackendKit's `KitSource`. It holds the task; the task does not hold it.
/// Released while its task is pending, nobody can complete the task any more, so it fails it
/// with `TaskError.abandoned` (C8.3); a completed task is left alone (C1.1).
final class ReferenceSource<T: Sendable>: CompletionSource {
    typealias Success = T

    let base: ReferenceTask<T>
    private let keepsPending: Bool

    init(backend: ReferenceBackend) {
        base = ReferenceTask<T>(backend: backend)
        keepsPending = backend.mutation == .sourceReleaseKeepsTaskPending
    }

    deinit {
        if !keepsPending { _ = base.tryComplete(.failure(TaskError.abandoned)) }
    }

    var task: any AsyncTask<T> { base }

    @discardableResult
    func tryComplete(_ completion: Completion<T>) -> Bool { base.tryComplete(completion) }

    @discardableResult
    func tryStart() -> Bool { base.tryStart() }
}
