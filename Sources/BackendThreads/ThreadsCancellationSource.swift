import Synchronization
import TaskAPI

/// The threads backend's cancellation source: a `CancellationState` under TaskAPI's `Locked`, with
/// an atomic mirror of the requested flag so that `checkpoint()` never takes the lock (C4.1, C4.2).
///
/// Handlers run on the thread that calls the first `cancel()`, inside that call, in registration
/// order; for `cancel(after:)` that is a worker of the pool.
final class ThreadsCancellationSource: CancellationSource {
    typealias Handler = @Sendable () -> Void

    private let owner: ThreadsBackend
    private let state = Locked(CancellationState<Handler>())
    private let requested = Atomic(false)
    /// Timers of `cancel(after:)`, disposed once cancelled or when the source is freed.
    private let timers = Locked<[any Disposable]>([])

    init(owner: ThreadsBackend) {
        self.owner = owner
    }

    deinit {
        // A dropped source cannot be observed any more: its pending timers have nothing to do.
        for timer in timers.withLock({ $0 }) { timer.dispose() }
    }

    var isCancellationRequested: Bool { requested.load(ordering: .acquiring) }

    func cancel() {
        guard let handlers = state.withLock({ $0.cancel() }) else { return }
        requested.store(true, ordering: .releasing)
        for handler in handlers { handler() }
        let pending = timers.withLock { timers in
            defer { timers = [] }
            return timers
        }
        for timer in pending { timer.dispose() }
    }

    func cancel(after delay: Duration) {
        if isCancellationRequested { return }
        let timer = owner.schedule(after: delay) { [weak self] in self?.cancel() }
        timers.withLock { $0.append(timer) }
        // Cancelled meanwhile: the timer is no longer needed (disposing twice does nothing).
        if isCancellationRequested { timer.dispose() }
    }

    func register(_ handler: @escaping @Sendable () -> Void) -> any Disposable {
        guard let id = state.withLock({ $0.register(handler) }) else {
            handler()
            return NoopDisposable()
        }
        return Registration(source: self, id: id)
    }

    private struct Registration: Disposable {
        weak var source: ThreadsCancellationSource?
        let id: UInt64

        func dispose() {
            source?.state.withLock { $0.dispose(id) }
        }
    }
}
