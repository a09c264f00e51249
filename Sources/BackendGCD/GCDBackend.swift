import BackendKit
import Dispatch
import ScheduleKit
import TaskAPI

/// The contract on Dispatch.
///
/// - Default executor: Dispatch's global queue, with replacement workers for bodies blocked in
///   `wait()` (C6.4), at most `maxBlockedThreads` at once (`BlockingThreads`).
/// - Serial executors: serial Dispatch queues.
/// - Inline executor: the calling thread, through the kit's per-thread trampoline (C2.7).
/// - Timers: `DispatchSourceTimer` on the global queue.
/// - Tasks: BackendKit's `KitTask`, its state under a lock; no queue hop to complete or
///   register.
/// - Main executor: the main actor, whose executor is the main queue; a command-line program
///   serves it with `runMainLoop(until:)` or `runMainLoop()` (GCDBackend+Main.swift, C9.8).
///   Serial executors are also Swift `SerialExecutor`s (GCDExecutors+Isolation.swift, C9.9).
public final class GCDBackend: KitBackend {
    /// "gcd", in reports and test ids.
    public let name = "gcd"
    #if PlantedBugs
    /// The planted bug this backend was made with, which its tasks' waiters and cancellation
    /// sources carry (`KitBackend.plantedBugs`).
    public let plantedBugs = PlantedBugSwitch()
    #endif
    private let defaultQueue: GCDDefaultExecutor
    /// The most replacement workers started at once for bodies blocked in `wait()`.
    public let maxBlockedThreads: Int

    /// A backend with the default limit of threads for blocked bodies.
    public convenience init() {
        self.init(validLimit: BlockingThreads.defaultLimit)
    }

    /// A backend that starts at most `maxBlockedThreads` replacement workers at once for bodies
    /// blocked in `wait()` (1 through `BlockingThreads.maximumLimit`; C6.4 needs 16). Throws
    /// `BackendConfigurationError` for a value out of range.
    public convenience init(maxBlockedThreads: Int) throws(BackendConfigurationError) {
        self.init(validLimit: try BlockingThreads.validated(maxBlockedThreads, backend: "gcd"))
    }

    /// A backend whose default executor runs at most `drainers` drainers at once (1 or more;
    /// one per processor by default): for tests whose races must not depend on the machine's
    /// processor count (a planted drainer bug, an exhaustive exploration).
    @_spi(Testing) public convenience init(drainers: Int) {
        self.init(validLimit: BlockingThreads.defaultLimit, drainers: drainers)
    }

    private init(validLimit: Int, drainers: Int = NativeThread.processorCount) {
        maxBlockedThreads = validLimit
        defaultQueue = GCDDefaultExecutor(maxBlockedThreads: validLimit, drainers: drainers)
    }

    /// A backend shared by everyone who needs just one.
    public static let shared = GCDBackend()

    /// The default executor (C7.2): Dispatch's global queue, drained by at most one drainer per
    /// processor, with replacement workers for bodies blocked in `wait()` (C6.4).
    public var defaultExecutor: any AsyncTaskExecutor { defaultQueue }

    /// The default executor, unretained: a `let` of this backend.
    public var unretainedDefaultQueue: Unmanaged<KitQueueExecutor>? { .passUnretained(defaultQueue) }

    /// Its queues, drainers, replacement workers, serial queues and timers synchronize through
    /// ScheduleKit's primitives and hand work to Dispatch through `SchedulePoint.fork`.
    public var isScheduleInstrumented: Bool { true }

    /// A new serial executor (C7.2): a serial Dispatch queue named `label`. It is also a Swift
    /// `SerialExecutor`, so an actor can use it as its executor (C9.9).
    public func makeSerialExecutor(label: String) -> any AsyncTaskExecutor {
        GCDSerialExecutor(label: label)
    }

    /// Runs `job` on the global queue no earlier than `delay` from now, unless disposed first: a
    /// `DispatchSourceTimer` (C5.4, C5.5).
    public func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable {
        GCDTimer(after: delay, job)
    }
}

/// A one-shot timer. Cancelling the Dispatch source releases its handler at once (C5.5, C8.1).
final class GCDTimer: Disposable {
    // DispatchSourceTimer is not annotated Sendable, but Dispatch sources are thread-safe:
    // `cancel()` may be called from any thread, and nothing else touches it after `init`.
    private nonisolated(unsafe) let source: DispatchSourceTimer
    /// The handler's hand-off under a controlled run, withdrawn when disposed.
    private let ticket: (any ScheduleTicket)?

    init(after delay: Duration, _ job: @escaping @Sendable () -> Void) {
        // Under a controlled run, the handler is a hand-off due at the deadline on the run's clock;
        // disposing releases the handler, and with it the ticket, unadopted. The job is released
        // on its seat when it ran (`SchedulePoint.adopting`), not when Dispatch frees the handler.
        let ticket = SchedulePoint.fork(.notBefore(MonotonicClock.deadline(after: delay)), label: "GCD timer")
        self.ticket = ticket
        source = DispatchSource.makeTimerSource(queue: .global())
        source.schedule(deadline: .now() + dispatchInterval(delay))
        let handler = SchedulePoint.adopting(ticket, job)
        source.setEventHandler { [source] in
            handler()
            source.cancel()
        }
        source.activate()
    }

    func dispose() {
        source.cancel()
        SchedulePoint.withdraw(ticket)
    }
}

/// `duration` as a Dispatch interval in nanoseconds, clamped to what Dispatch can represent.
func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
    let nanoseconds = MonotonicClock.nanoseconds(duration)
    return nanoseconds >= UInt64(Int.max) ? .never : .nanoseconds(Int(nanoseconds))
}

#if PlantedBugs
/// The objects it makes while a program runs (a prepared task) carry the bug it was made with.
extension GCDBackend: PlantedBugCarrier {}
#endif
