import Synchronization

#if PlantedBugs
// Public under the trait: the planted-bug initializer takes a `PlantedBugSwitch`.
public import ScheduleKit
#else
internal import ScheduleKit
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A complete cancellation source over `CancellationState`, needing only the backend's timer:
/// what every backend of this package hands out, and any backend may (C4.1, C4.2, C4.6).
///
/// - Handlers run on the thread that calls the first `cancel()`, inside that call, in
///   registration order; a handler registered after cancellation runs before `register` returns.
/// - Every `cancel()` returns only once the handlers registered before the first one have all
///   run (C4.1): a second call on another thread waits for the first call's handlers, so after
///   any `cancel()` returns, linked sources are cancelled too. A `cancel()` made from inside one
///   of this source's handlers, on the thread running them, returns at once (waiting there
///   would wait for itself).
/// - `isCancellationRequested` and `checkpoint()` read an atomic and never take the lock.
/// - `cancel(after:)` runs `cancel()` on the timer's thread; its timers are disposed once the
///   source is cancelled or freed, so a dropped source keeps no timer closure alive.
public final class StandardCancellationSource: CancellationSource {
    public typealias Handler = @Sendable () -> Void
    /// Runs a job once after a delay unless disposed: a backend's `schedule(after:_:)`.
    public typealias DelayScheduler = @Sendable (Duration, @escaping @Sendable () -> Void) -> any Disposable

    private let timer: DelayScheduler
    private let state = Locked(CancellationState<Handler>())
    /// Held by the call running the handlers for as long as they run: every other `cancel()`
    /// takes it before looking at `state`, so it returns only after they finished.
    private let running = Locked(())
    /// The thread running the handlers (`nil` when none), for the call from inside a handler.
    private let runner = Locked<ThreadIdentity?>(nil)
    /// Atomics whose order matters (a checkpoint's answer, a second `cancel()`'s shortcut): each
    /// operation is a schedule point under a controlled run.
    private let requested = ScheduledAtomic(false)
    /// Set once every handler of the first `cancel()` ran: later calls return at once.
    private let handlersDone = ScheduledAtomic(false)
    private let timers = Locked<[any Disposable]>([])
    #if PlantedBugs
    /// The planted bug the backend carries (`TaskAPIPlantedBug`).
    private let plantedBugs: PlantedBugSwitch
    #endif

    public init(timer: @escaping DelayScheduler) {
        self.timer = timer
        #if PlantedBugs
        plantedBugs = .off
        #endif
    }

    #if PlantedBugs
    /// A source carrying `plantedBugs`: a backend's, for ProductionMutantTests.
    public init(plantedBugs: PlantedBugSwitch, timer: @escaping DelayScheduler) {
        self.timer = timer
        self.plantedBugs = plantedBugs
    }
    #endif

    deinit {
        for pending in timers.withLock({ $0 }) { pending.dispose() }
    }

    public var isCancellationRequested: Bool { requested.load(ordering: .acquiring) }

    public func cancel() {
        if handlersDone.load(ordering: .acquiring) { return }
        #if PlantedBugs
        if plantedBugs.isOn(TaskAPIPlantedBug.secondCancelSkipsWait), requested.load(ordering: .acquiring) { return }
        #endif
        let me = ThreadIdentity.current
        if runner.withLock({ $0 == me }) { return }
        let ranHandlers: Bool = running.withLock { _ in
            let handlers: [Handler]? = state.withLock { state in
                guard let handlers = state.cancel() else { return nil }
                requested.store(true, ordering: .releasing)
                return handlers
            }
            guard let handlers else { return false }
            runner.withLock { $0 = me }
            for handler in handlers { handler() }
            runner.withLock { $0 = nil }
            handlersDone.store(true, ordering: .releasing)
            return true
        }
        guard ranHandlers else { return }
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
        #if PlantedBugs
        if plantedBugs.isOn(TaskAPIPlantedBug.registerChecksCancelApart) { return registerCheckingApart(handler) }
        if plantedBugs.isOn(TaskAPIPlantedBug.registerRunsHandlerAgain) { return registerThenRunIfCancelled(handler) }
        #endif
        guard let id = state.withLock({ $0.register(handler) }) else {
            handler()
            return NoopDisposable()
        }
        return Registration(source: self, id: id)
    }

    #if PlantedBugs
    /// The planted bug `registerChecksCancelApart`: the check and the store in two critical
    /// sections, a handler refused in between dropped.
    private func registerCheckingApart(_ handler: @escaping @Sendable () -> Void) -> any Disposable {
        if state.withLock({ $0.isCancellationRequested }) {
            handler()
            return NoopDisposable()
        }
        guard let id = state.withLock({ $0.register(handler) }) else { return NoopDisposable() }
        return Registration(source: self, id: id)
    }

    /// The planted bug `registerRunsHandlerAgain`: the store, then a check that runs the handler,
    /// in two critical sections.
    private func registerThenRunIfCancelled(_ handler: @escaping @Sendable () -> Void) -> any Disposable {
        let id = state.withLock { $0.register(handler) }
        guard let id, !requested.load(ordering: .acquiring) else {
            handler()
            return NoopDisposable()
        }
        return Registration(source: self, id: id)
    }
    #endif

    private struct Registration: Disposable {
        weak var source: StandardCancellationSource?
        let id: UInt64

        func dispose() {
            source?.state.withLock { $0.dispose(id) }
        }
    }
}

/// The identity of the calling thread, comparable across threads.
struct ThreadIdentity: Equatable, Sendable {
    // pthread_t is an integer on Linux and a pointer on Darwin: only compared, never used to
    // reach the thread, and a thread's id is unique while it runs (all that `runner` needs).
    private let raw: UInt

    static var current: ThreadIdentity {
        #if canImport(Darwin)
        ThreadIdentity(raw: UInt(bitPattern: pthread_self()))
        #else
        ThreadIdentity(raw: UInt(pthread_self()))
        #endif
    }
}
