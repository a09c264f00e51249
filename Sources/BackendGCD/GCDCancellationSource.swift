import Synchronization
import TaskAPI

/// The GCD backend's cancellation source: a `CancellationState` under a `Locked` (a sanitizer-visible `Mutex`), with an atomic
/// mirror of the requested flag so that `checkpoint()` never takes the lock (C4.1, C4.2).
final class GCDCancellationSource: CancellationSource {
    typealias Handler = @Sendable () -> Void

    private let owner: GCDBackend
    private let state = Locked(CancellationState<Handler>())
    private let requested = Atomic(false)

    init(owner: GCDBackend) {
        self.owner = owner
    }

    var isCancellationRequested: Bool { requested.load(ordering: .acquiring) }

    func cancel() {
        guard let handlers = state.withLock({ $0.cancel() }) else { return }
        requested.store(true, ordering: .releasing)
        for handler in handlers { handler() }
    }

    func cancel(after delay: Duration) {
        _ = owner.schedule(after: delay) { [weak self] in self?.cancel() }
    }

    func register(_ handler: @escaping @Sendable () -> Void) -> any Disposable {
        guard let id = state.withLock({ $0.register(handler) }) else {
            handler()
            return NoopDisposable()
        }
        return Registration(source: self, id: id)
    }

    private struct Registration: Disposable {
        weak var source: GCDCancellationSource?
        let id: UInt64

        func dispose() {
            source?.state.withLock { $0.dispose(id) }
        }
    }
}
