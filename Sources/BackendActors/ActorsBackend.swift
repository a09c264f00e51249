import BackendKit
import ScheduleKit
import TaskAPI

/// The contract on Swift concurrency.
///
/// - Tasks: BackendKit's `KitTask`, shared with the other backends: its state under a
///   lock, continuations handed over in registration order from a loop (C2.4, C2.7).
/// - Default executor: a `TaskExecutor` with threads of its own that grows while its workers
///   block in `wait()` (C6.4), by at most `maxBlockedThreads`; Swift's cooperative pool is never
///   blocked.
/// - Serial executors: `Mailbox`es, which are `SerialExecutor`s: usable as an actor's executor.
/// - Inline executor: the calling thread, through the kit's per-thread trampoline (C2.7).
/// - Timers: `Task.sleep` in a Swift task on the default executor; disposing cancels it.
/// - `await task.value`: a Swift continuation resumed by the completing thread (C6.5, C4.7).
/// - Main executor: the main actor (TaskAPI's `MainActorExecutor`); a command-line program
///   serves it with `runMainLoop(until:)` or `runMainLoop()` (ActorsBackend+Main.swift, C9.8).
public final class ActorsBackend: KitBackend {
    /// "actors", in reports and test ids.
    public let name = "actors"
    #if PlantedBugs
    /// The planted bug this backend was made with, which its tasks' waiters, cancellation
    /// sources and mailboxes carry (`KitBackend.plantedBugs`).
    public let plantedBugs = PlantedBugSwitch()
    #endif
    let poolExecutor: PoolExecutor

    /// A backend on the worker pool every `ActorsBackend()` shares, with the default limit of
    /// threads for blocked bodies.
    public init() {
        poolExecutor = PoolExecutor.shared
    }

    /// A backend with a worker pool of its own, which starts at most `maxBlockedThreads` threads
    /// at once for bodies blocked in `wait()` (1 through `BlockingThreads.maximumLimit`; C6.4
    /// needs 16). Throws `BackendConfigurationError` for a value out of range.
    public init(maxBlockedThreads: Int) throws(BackendConfigurationError) {
        poolExecutor = PoolExecutor(limit: try BlockingThreads.validated(maxBlockedThreads, backend: "actors"))
    }

    /// A backend with a worker pool of its own of `workers` threads (at least 1): for tests whose
    /// races must not depend on the machine's processor count (the planted mailbox bugs).
    @_spi(Testing) public init(workers: Int) {
        poolExecutor = PoolExecutor(width: max(1, workers), limit: BlockingThreads.defaultLimit)
    }

    /// The most threads the pool starts at once for bodies blocked in `wait()`.
    public var maxBlockedThreads: Int { poolExecutor.limit }

    /// A backend shared by everyone who needs just one.
    public static let shared = ActorsBackend()

    /// The default executor (C7.2): the worker pool, a Swift `TaskExecutor` (`taskExecutor`),
    /// which grows while its workers block in `wait()` (C6.4).
    public var defaultExecutor: any AsyncTaskExecutor { poolExecutor }

    /// The default executor, unretained: a `let` of this backend.
    public var unretainedDefaultQueue: Unmanaged<KitQueueExecutor>? { .passUnretained(poolExecutor) }

    /// Its pool and mailboxes synchronize through ScheduleKit's primitives (a mailbox's word is a
    /// `ScheduledAtomic`), its threads start through `NativeThread`. Its timers and `runAsync`
    /// are Swift tasks, outside any controlled run (controlled programs leave them out).
    public var isScheduleInstrumented: Bool { true }

    /// The default executor as a Swift `TaskExecutor`, for `Task(executorPreference:)`.
    public var taskExecutor: any TaskExecutor { poolExecutor }

    /// A new serial executor: FIFO, one job at a time, on the default executor's threads. It is
    /// also a Swift `SerialExecutor`, so an actor can use it as its executor.
    public func makeSerialExecutor(label: String) -> any AsyncTaskExecutor {
        #if PlantedBugs
        Mailbox(poolExecutor: poolExecutor, plantedBugs: plantedBugs)
        #else
        Mailbox(poolExecutor: poolExecutor)
        #endif
    }

    /// Runs `job` on the default executor no earlier than `delay` from now, unless disposed
    /// first: `Task.sleep` in a Swift task, which disposing cancels (C5.4, C5.5).
    public func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable {
        ActorsTimer(after: delay, on: poolExecutor, job)
    }
}

#if PlantedBugs
/// The objects it makes while a program runs (a prepared task) carry the bug it was made with.
extension ActorsBackend: PlantedBugCarrier {}
#endif
