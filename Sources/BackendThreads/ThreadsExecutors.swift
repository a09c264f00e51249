import BackendKit
import ScheduleKit
import TaskAPI

/// The default executor (C7.2): jobs run in parallel on the backend's worker pool, in FIFO order
/// of submission (they may finish in any order).
///
/// It is also the pool's handle: the backend, its serial executors and its timer thread hold it;
/// when the last of them lets go, the pool is told to stop, and its workers exit once every
/// queued job has run.
final class ThreadsDefaultExecutor: KitQueueExecutor, @unchecked Sendable {
    // @unchecked: restated from `KitQueueExecutor`; every property is a `let` of a Sendable type.
    /// The kit's pool of POSIX threads: its run queue, workers and C6.4 accounting.
    let pool: ThreadPool

    init(workers: Int, maxBlockedThreads: Int) {
        pool = ThreadPool(name: "threads", workers: workers, maxBlockedThreads: maxBlockedThreads)
        super.init(runner: pool)
    }

    deinit {
        pool.stop()
    }

    override func push(_ job: consuming JobRing.Slot) {
        pool.push(job)
    }
}

/// A serial executor (C7.2): FIFO, one job at a time, multiplexed on the worker pool.
///
/// While it has jobs, one drain job of it sits in (or runs on) the pool; the drain runs up to
/// `batch` jobs in order, then goes back to the end of the run queue so that a busy serial
/// executor cannot starve the rest of the pool. Jobs may run on different workers one after
/// another; each sees everything the previous one wrote.
final class ThreadsSerialExecutor: AsyncTaskExecutor {
    private struct State: ~Copyable {
        var queue = JobRing(keptCapacity: 4_096)
        /// `true` while a drain job is queued on the pool or running.
        var scheduled = false
    }

    let label: String
    private let poolExecutor: ThreadsDefaultExecutor
    private let state = Locked(State())
    private static let batch = 64
    #if PlantedBugs
    /// The planted bug the backend was made with (`ThreadsPlantedBug`).
    private let plantedBugs: PlantedBugSwitch

    init(label: String, poolExecutor: ThreadsDefaultExecutor, plantedBugs: PlantedBugSwitch) {
        self.label = label
        self.poolExecutor = poolExecutor
        self.plantedBugs = plantedBugs
    }
    #else
    init(label: String, poolExecutor: ThreadsDefaultExecutor) {
        self.label = label
        self.poolExecutor = poolExecutor
    }
    #endif

    func execute(_ job: @escaping @Sendable () -> Void) {
        let schedule = state.withLock { state -> Bool in
            state.queue.push(job)
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        // The drain job keeps this executor alive until its queue is empty.
        if schedule { poolExecutor.execute { self.drain() } }
    }

    private func drain() {
        // Records this executor as the thread's isolation while its jobs run (C9.7, C9.9).
        let runtime = ThreadRuntime.current
        let outer = runtime.isolation
        runtime.isolation = self
        defer { runtime.isolation = outer }
        let endsBeforeLast = plantedEndsBeforeLastJob
        for _ in 0..<Self.batch {
            let (next, last) = state.withLock { state -> (JobRing.Slot, Bool) in
                let slot = state.queue.pop()
                if slot.isEmpty { state.scheduled = false }
                let last = endsBeforeLast && !slot.isEmpty && state.queue.isEmpty
                if last { state.scheduled = false }
                return (slot, last)
            }
            guard !next.isEmpty else { return }
            next.run(on: runtime)
            if last { return }
        }
        poolExecutor.execute { self.drain() }
    }

    /// Whether the planted bug `serialEndsBeforeLastJob` is on: the drain ends before its last
    /// job runs. A constant `false` without the package trait `PlantedBugs`.
    @inline(__always)
    private var plantedEndsBeforeLastJob: Bool {
        #if PlantedBugs
        plantedBugs.isOn(ThreadsPlantedBug.serialEndsBeforeLastJob)
        #else
        false
        #endif
    }
}
