import ScheduleKit
import Synchronization
import TaskAPI

/// A pool of POSIX threads of its own behind one FIFO run queue, with C6.4's accounting for
/// workers blocked in `wait()`: the default executor of the threads and actors backends, and of
/// any backend built on the kit that wants threads of its own. A backend wraps it in its executor
/// (which may add what it needs, such as Swift's `TaskExecutor`) and calls `stop()` when the last
/// handle to that executor goes away.
///
/// - Workers: `target` of them, started lazily (when a job finds no idle worker), never more
///   than `target` running unless some are blocked in `wait()`.
/// - Blocking (C6.4): a worker that blocks in `wait()` is counted as blocked; while fewer than
///   `target` workers are unblocked and jobs are waiting for a thread, the pool starts a
///   replacement worker. A worker that finds more than `target` unblocked workers once it is
///   done with its job exits, so the pool shrinks back.
/// - Idle workers spin briefly on an atomic mirror of the queue length before parking on the
///   condition variable (`QueuePollers`); at most half of them spin at once.
/// - Shutdown: `stop()` (called when the last handle to the pool goes away) makes workers exit
///   once the queue is empty; jobs already queued still run, each exactly once (C7.3).
///
/// Worker threads hold only this object, never the backend or an executor, so dropping the
/// backend is what ends them. On a worker, `ThreadRuntime.current.pool` is this pool.
public final class ThreadPool: BlockingPool {
    private struct State: ~Copyable {
        var queue = JobRing(keptCapacity: 4_096)
        /// Worker threads started and not yet exited.
        var live = 0
        /// Workers inside `blockingCall`.
        var blocked = 0
        /// Workers sleeping on the condition variable.
        var parked = 0
        var stopping = false
        var limitReported = false

        /// Whether a queued job needs a new worker: fewer than `target` unblocked workers, and
        /// more jobs than idle (parked or spinning) workers to take them.
        func needsWorker(target: Int, spinning: Int) -> Bool {
            live - blocked < target && queue.count > parked + spinning
        }

        /// Claims a new worker if one is needed and the limit allows (`live` counts it). At the
        /// limit, returns `report: true` the first time, for the caller to report.
        mutating func claimWorker(target: Int, limit: Int, spinning: Int) -> (spawn: Bool, report: Bool) {
            guard needsWorker(target: target, spinning: spinning) else { return (false, false) }
            guard live < target + limit else {
                defer { limitReported = true }
                return (false, !limitReported)
            }
            live += 1
            return (true, false)
        }
    }

    private enum Take {
        case job(JobRing.Slot)
        case exit
        case empty
    }

    /// The number of unblocked workers the pool aims for.
    public let target: Int
    /// The most workers beyond `target` started for blocked ones (`BlockingThreads`).
    public let limit: Int
    /// The backend's name: in thread names and in the limit's report (`BackendDiagnostics`).
    public let name: String
    private let state: ConditionLock<State>
    /// Idle workers polling the queue length before they park (at most half the workers).
    private let pollers: QueuePollers
    /// Opens once the pool was stopped and its last worker has exited.
    public let exited = Latch()
    #if PlantedBugs
    /// The planted bug the pool was made with (`KitPlantedBug`).
    private let plantedBugs = PlantedBugSwitch()
    #endif

    /// A pool of `workers` threads (at least 1), started on demand, and at most
    /// `maxBlockedThreads` more at once while workers are blocked; `name` is the backend's.
    public init(name: String, workers: Int, maxBlockedThreads: Int) {
        self.name = name
        target = max(1, workers)
        limit = maxBlockedThreads
        pollers = QueuePollers(limit: target / 2)
        state = ConditionLock(State(), label: "ThreadPool run queue")
    }

    /// Queues `job` at the tail of the run queue; some worker runs it, exactly once (C7.3).
    public func push(_ job: @escaping @Sendable () -> Void) {
        push(JobRing.Slot(job))
    }

    /// Queues the job of `slot` at the tail of the run queue; some worker runs it, exactly once
    /// (C7.3).
    public func push(_ slot: consuming JobRing.Slot) {
        #if PlantedBugs
        if plantedBugs.isOn(KitPlantedBug.poolSignalsBeforePush) { return wakeThenPush(slot) }
        #endif
        state.lock()
        state.guarded.queue.push(slot)
        let count = state.guarded.queue.count
        pollers.mirror(count)
        let spinning = pollers.count
        // Spinning workers will each take a job before they park; wake a sleeper only for the
        // jobs they cannot cover.
        if state.guarded.parked > 0 && count > spinning { state.signal() }
        let (spawn, report) = state.guarded.claimWorker(target: target, limit: limit, spinning: spinning)
        state.unlock()
        if report { reportLimit() }
        if spawn { startWorker() }
    }

    #if PlantedBugs
    /// The planted bug `poolSignalsBeforePush`: a parked worker is woken, then the job queued, in
    /// two critical sections.
    private func wakeThenPush(_ slot: consuming JobRing.Slot) {
        state.withLock { state in
            if state.parked > 0 { self.state.signal() }
        }
        state.lock()
        state.guarded.queue.push(slot)
        pollers.mirror(state.guarded.queue.count)
        let (spawn, report) = state.guarded.claimWorker(target: target, limit: limit, spinning: pollers.count)
        state.unlock()
        if report { reportLimit() }
        if spawn { startWorker() }
    }
    #endif

    /// Called by a worker about to block (C6.4): starts a replacement if jobs are waiting.
    public func willBlock() {
        state.lock()
        state.guarded.blocked += 1
        let (spawn, report) = state.guarded.claimWorker(
            target: target, limit: limit, spinning: pollers.count)
        state.unlock()
        if report { reportLimit() }
        if spawn { startWorker() }
    }

    private func reportLimit() {
        BackendDiagnostics.report(.init(backend: name, limit: limit))
    }

    /// Called by a worker whose blocking call returned.
    public func didUnblock() {
        state.withLock { $0.blocked -= 1 }
    }

    /// Lets workers exit once the queue is empty. Idempotent.
    public func stop() {
        let none = state.withLock { state -> Bool in
            state.stopping = true
            return state.live == 0
        }
        state.broadcast()
        if none { exited.open() }
    }

    private func startWorker() {
        let spawned = NativeThread.spawn(name: name + "-worker") { [self] in
            runWorker()
        }
        if !spawned {
            // No thread today: the job stays queued for a running worker or the next push.
            let none = state.withLock { state -> Bool in
                state.live -= 1
                return state.stopping && state.live == 0
            }
            if none { exited.open() }
        }
    }

    /// A worker thread's whole life: run jobs until told to exit.
    private func runWorker() {
        let runtime = ThreadRuntime.current
        runtime.pool = self
        while let job = nextJob() {
            job.run(on: runtime)
        }
        runtime.pool = nil
    }

    /// The next job for the calling worker, or `nil` if it must exit. Spins, then parks.
    private func nextJob() -> JobRing.Slot? {
        while true {
            state.lock()
            let first = take()
            state.unlock()
            // Consumed: the job moves out of the answer, no retain and release of what it holds.
            switch consume first {
            case .job(let job): return job
            case .exit: return nil
            case .empty: break
            }
            if pollers.poll() { continue }
            state.lock()
            defer { state.unlock() }
            #if PlantedBugs
            if plantedBugs.isOn(KitPlantedBug.poolParksWithoutRecheck) { parkWithoutRecheck() }
            #endif
            while true {
                switch take() {
                case .job(let job): return job
                case .exit: return nil
                case .empty: break
                }
                state.guarded.parked += 1
                state.wait()
                state.guarded.parked -= 1
            }
        }
    }

    #if PlantedBugs
    /// The planted bug `poolParksWithoutRecheck`: under the lock, the worker parks once without
    /// looking at the queue again.
    private func parkWithoutRecheck() {
        state.guarded.parked += 1
        state.wait()
        state.guarded.parked -= 1
    }
    #endif

    /// Under the lock: a job, an order to exit (surplus worker, or stopped and drained), or nothing.
    private func take() -> Take {
        if state.guarded.live - state.guarded.blocked > target {
            state.guarded.live -= 1
            return .exit
        }
        let slot = state.guarded.queue.pop()
        if !slot.isEmpty {
            pollers.mirror(state.guarded.queue.count)
            return .job(slot)
        }
        if state.guarded.stopping {
            state.guarded.live -= 1
            if state.guarded.live == 0 { exited.open() }
            return .exit
        }
        return .empty
    }
}
