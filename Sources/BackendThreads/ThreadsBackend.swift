import BackendKit
import ScheduleKit
import TaskAPI

/// The contract on plain POSIX threads, scheduled by this module and BackendKit alone: no system
/// work queues and no Swift concurrency runtime.
///
/// - Default executor: the kit's `ThreadPool`, `workers` threads draining one FIFO run queue; a body
///   blocked in `wait()` on a worker gets a replacement worker while jobs are waiting (C6.4), at
///   most `maxBlockedThreads` at once (`BlockingThreads`).
/// - Serial executors: FIFO queues multiplexed on the pool, one job at a time each.
/// - Inline executor: the calling thread, through the kit's per-thread trampoline (C2.7).
/// - Timers: one timer thread per backend, started with the first timer; due jobs run on the pool.
/// - Tasks: BackendKit's `KitTask`, its state under a lock; completing or registering
///   takes only that lock.
/// - Main executor: a main loop the program's main thread runs with `runMainLoop(until:)` or
///   `runMainLoop()` (ThreadsMainLoop.swift, C9.8); serial executors are also Swift `SerialExecutor`s (C9.9).
///
/// The threads belong to the backend: once the backend, every task it made and every executor
/// it handed out are released, the workers finish the queued jobs and exit, and the timer
/// thread exits after its last pending timer.
public final class ThreadsBackend: KitBackend {
    /// "threads", in reports and test ids.
    public let name = "threads"
    #if PlantedBugs
    /// The planted bug this backend was made with, which its tasks' waiters, cancellation
    /// sources and serial executors carry (`KitBackend.plantedBugs`).
    public let plantedBugs = PlantedBugSwitch()
    #endif
    /// The number of workers the pool keeps running (more only while some are blocked).
    public let workerCount: Int
    private let poolExecutor: ThreadsDefaultExecutor
    private let timers: TimerThread

    /// The most threads started at once beyond `workerCount` for bodies blocked in `wait()`.
    public let maxBlockedThreads: Int

    /// The largest pool a backend accepts.
    public static let maximumWorkers = 4_096

    /// A backend whose pool runs one worker per processor, with the default limit of threads for
    /// blocked bodies. Threads start on demand, not here.
    public convenience init() {
        self.init(validWorkers: ThreadsBackend.processorCount, maxBlockedThreads: BlockingThreads.defaultLimit)
    }

    /// A backend whose pool runs `workers` threads (1 through `maximumWorkers`), and starts at most
    /// `maxBlockedThreads` more at once while bodies are blocked in `wait()` (1 through
    /// `BlockingThreads.maximumLimit`; C6.4 needs 16). Throws `BackendConfigurationError` for a
    /// value out of range; nothing is started then. Threads start on demand, not here.
    public convenience init(
        workers: Int,
        maxBlockedThreads: Int = BlockingThreads.defaultLimit
    ) throws(BackendConfigurationError) {
        guard (1...Self.maximumWorkers).contains(workers) else {
            throw BackendConfigurationError(
                backend: "threads", parameter: "workers", value: workers,
                requirement: "between 1 and \(Self.maximumWorkers)")
        }
        let limit = try BlockingThreads.validated(maxBlockedThreads, backend: "threads")
        self.init(validWorkers: workers, maxBlockedThreads: limit)
    }

    private init(validWorkers workers: Int, maxBlockedThreads: Int) {
        workerCount = workers
        self.maxBlockedThreads = maxBlockedThreads
        poolExecutor = ThreadsDefaultExecutor(workers: workers, maxBlockedThreads: maxBlockedThreads)
        timers = TimerThread(poolExecutor: poolExecutor)
    }

    /// The number of processors online (at least 1): the default worker count.
    public static var processorCount: Int { NativeThread.processorCount }

    /// A backend shared by everyone who needs just one. Its threads live as long as the process.
    public static let shared = ThreadsBackend()

    /// The default executor (C7.2): the pool of `workerCount` threads, with replacement workers
    /// for bodies blocked in `wait()` (C6.4).
    public var defaultExecutor: any AsyncTaskExecutor { poolExecutor }

    /// The default executor, unretained: a `let` of this backend.
    public var unretainedDefaultQueue: Unmanaged<KitQueueExecutor>? { .passUnretained(poolExecutor) }

    /// Its pool, serial executors, timer thread and main loop synchronize through TaskAPI's
    /// primitives, and its threads start through `NativeThread` (a `SchedulePoint.fork`).
    public var isScheduleInstrumented: Bool { true }

    /// A new serial executor (C7.2): a FIFO queue multiplexed on the pool, one job at a time. It
    /// is also a Swift `SerialExecutor`, so an actor can use it as its executor (C9.9).
    public func makeSerialExecutor(label: String) -> any AsyncTaskExecutor {
        #if PlantedBugs
        ThreadsSerialExecutor(label: label, poolExecutor: poolExecutor, plantedBugs: plantedBugs)
        #else
        ThreadsSerialExecutor(label: label, poolExecutor: poolExecutor)
        #endif
    }

    /// Runs `job` on a pool worker no earlier than `delay` from now, unless disposed first.
    public func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable {
        timers.schedule(after: delay, job)
    }

    /// A watch on this backend's threads that does not keep the backend alive; see
    /// `ThreadsExitWatch`.
    public func makeExitWatch() -> ThreadsExitWatch {
        ThreadsExitWatch(poolExited: poolExecutor.pool.exited, timerExited: timers.core.exited)
    }
}

/// Observes the shutdown of one backend's threads, for tests and orderly process exit.
public struct ThreadsExitWatch: Sendable {
    let poolExited: Latch
    let timerExited: Latch

    /// Blocks until every thread the backend started (workers and timer) has exited, which
    /// happens only after the backend and everything keeping its pool alive were released.
    /// Returns `false` if that did not happen within `timeout`.
    public func wait(timeout: Duration) -> Bool {
        let deadline = MonotonicClock.deadline(after: timeout)
        return timerExited.wait(until: deadline) && poolExited.wait(until: deadline)
    }
}

#if PlantedBugs
/// The objects it makes while a program runs (a prepared task) carry the bug it was made with.
extension ThreadsBackend: PlantedBugCarrier {}
#endif
