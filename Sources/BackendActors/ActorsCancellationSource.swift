import Synchronization
import TaskAPI

/// The actors backend's cancellation source: a `CancellationState` under a `Locked` (a sanitizer-visible `Mutex`), with an atomic
/// mirror of the requested flag so `checkpoint()` never takes the lock (C4.1, C4.2).
///
/// Not an actor, on purpose: C4.2 requires handlers to run inside the first `cancel()` and before
/// `register` returns when cancellation was already requested. An actor could only promise that
/// by blocking the caller until it has run the message, which a mailbox that another thread is
/// draining cannot do without a lock anyway.
final class ActorsCancellationSource: CancellationSource {
    typealias Handler = @Sendable () -> Void

    private let owner: ActorsBackend
    private let state = Locked(CancellationState<Handler>())
    private let requested = Atomic(false)

    init(owner: ActorsBackend) {
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
        weak var source: ActorsCancellationSource?
        let id: UInt64

        func dispose() {
            source?.state.withLock { $0.dispose(id) }
        }
    }
}
