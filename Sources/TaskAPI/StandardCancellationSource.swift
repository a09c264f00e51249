import Synchronization

/// A complete cancellation source over `CancellationState`, needing only the backend's timer:
/// what every backend of this package hands out, and any backend may (C4.1, C4.2, C4.6).
///
/// - Handlers run on the thread that calls the first `cancel()`, inside that call, in
///   registration order; a handler registered after cancellation runs before `register` returns.
/// - `isCancellationRequested` and `checkpoint()` read an atomic and never take the lock.
/// - `cancel(after:)` runs `cancel()` on the timer's thread; its timers are disposed once the
///   source is cancelled or freed, so a dropped source keeps no timer closure alive.
public final class StandardCancellationSource: CancellationSource {
    public typealias Handler = @Sendable () -> Void
    /// Runs a job once after a delay unless disposed: a backend's `schedule(after:_:)`.
    public typealias Timer = @Sendable (Duration, @escaping @Sendable () -> Void) -> any Disposable

    private let timer: Timer
    private let state = Locked(CancellationState<Handler>())
    private let requested = Atomic(false)
    private let timers = Locked<[any Disposable]>([])

    public init(timer: @escaping Timer) {
        self.timer = timer
    }

    deinit {
        for pending in timers.withLock({ $0 }) { pending.dispose() }
    }

    public var isCancellationRequested: Bool { requested.load(ordering: .acquiring) }

    public func cancel() {
        let handlers: [Handler]? = state.withLock { state in
            guard let handlers = state.cancel() else { return nil }
            requested.store(true, ordering: .releasing)
            return handlers
        }
        guard let handlers else { return }
        for handler in handlers { handler() }
        let pending = timers.withLock { timers in
            defer { timers = [] }
            return timers
        }
        for timer in pending { timer.dispose() }
    }

    public func cancel(after delay: Duration) {
        if isCancellationRequested { return }
        let pending = timer(delay) { [weak self] in self?.cancel() }
        timers.withLock { $0.append(pending) }
        // Cancelled meanwhile: the timer is no longer needed (disposing twice does nothing).
        if isCancellationRequested { pending.dispose() }
    }

    public func register(_ handler: @escaping @Sendable () -> Void) -> any Disposable {
        guard let id = state.withLock({ $0.register(handler) }) else {
            handler()
            return NoopDisposable()
        }
        return Registration(source: self, id: id)
    }

    private struct Registration: Disposable {
        weak var source: StandardCancellationSource?
        let id: UInt64

        func dispose() {
            source?.state.withLock { $0.dispose(id) }
        }
    }
}
