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
/// - Locks: the queue and the counts are under a `Locked` (a futex mutex: a push or a take is
///   about 20 instructions of locking, where a pthread mutex's lock and unlock cost 55); the
///   condition variable's `ConditionLock` is taken only to park a worker or to wake a parked
///   one. A worker parks holding it: it counts itself `parked` in a critical section of the
///   queue that found nothing to take, then waits. A push that finds a worker parked takes it to
///   signal, so the signal comes once that worker waits, never between its look and its wait.
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
        /// Workers sleeping on the condition variable, or counted so in the critical section that
        /// found nothing for them, holding `sleep` until they wait.
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
    private let state: Locked<State>
    /// Held by a worker from its last look at the queue before parking until it waits, and by
    /// a push or `stop()` to signal: the condition variable that parked workers sleep on.
    private let sleep: ConditionLock<Void>
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
        state = Locked(State())
        sleep = ConditionLock((), label: "ThreadPool run queue")
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
        var slot = slot
        let (wake, spawn, report) = state.withLock { state in
            state.queue.push(moving: &slot)
            let count = state.queue.count
            pollers.mirror(count)
            let spinning = pollers.count
            // Spinning workers will each take a job before they park; wake a sleeper only for
            // the jobs they cannot cover.
            let wake = state.parked > 0 && count > spinning
            let (spawn, report) = state.claimWorker(target: target, limit: limit, spinning: spinning)
            return (wake, spawn, report)
        }
        if wake { wakeOne() }
        if report { reportLimit() }
        if spawn { startWorker() }
    }

    /// Wakes one parked worker. Under `sleep`: a worker counted parked holds it until it waits.
    private func wakeOne() {
        sleep.lock()
        sleep.signal()
        sleep.unlock()
    }

    #if PlantedBugs
    /// The planted bug `poolSignalsBeforePush`: a parked worker is woken, then the job queued, in
    /// two critical sections.
    private func wakeThenPush(_ slot: consuming JobRing.Slot) {
        if state.withLock({ $0.parked > 0 }) { wakeOne() }
        var slot = slot
        let (spawn, report) = state.withLock { state in
            state.queue.push(moving: &slot)
            pollers.mirror(state.queue.count)
            return state.claimWorker(target: target, limit: limit, spinning: pollers.count)
        }
        if report { reportLimit() }
        if spawn { startWorker() }
    }
    #endif

    /// Called by a worker about to block (C6.4): starts a replacement if jobs are waiting.
    public func willBlock() {
        let (spawn, report) = state.withLock { state in
            state.blocked += 1
            return state.claimWorker(target: target, limit: limit, spinning: pollers.count)
        }
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
        // Under `sleep`, as `wakeOne()`: a worker about to park sees `stopping` or is woken.
        sleep.lock()
        sleep.broadcast()
        sleep.unlock()
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
        work: while true {
            // A queued job taken here, in one critical section, and run: `nextJob()` only once
            // the queue is found empty. A call of it per job cost its frame and the copy of its
            // answer (36 instructions per job with the loop, callgrind).
            let first = state.withLock { take(&$0) }
            switch consume first {
            case .job(let job):
                job.run(on: runtime)
            case .exit:
                break work
            case .empty:
                guard let job = nextJob() else { break work }
                job.run(on: runtime)
            }
        }
        runtime.pool = nil
    }

    /// The next job for the calling worker, or `nil` if it must exit. Spins, then parks.
    private func nextJob() -> JobRing.Slot? {
        while true {
            let first = state.withLock { take(&$0) }
            // Consumed: the job moves out of the answer, no retain and release of what it holds.
            switch consume first {
            case .job(let job): return job
            case .exit: return nil
            case .empty: break
            }
            if pollers.poll() { continue }
            sleep.lock()
            defer { sleep.unlock() }
            #if PlantedBugs
            if plantedBugs.isOn(KitPlantedBug.poolParksWithoutRecheck) { parkWithoutRecheck() }
            #endif
            var woken = false
            while true {
                // One critical section: no longer parked if woken, the look, counted parked if
                // it found nothing. A push that then finds it parked signals under `sleep`,
                // which this worker holds until it waits.
                let next = state.withLock { state -> Take in
                    if woken { state.parked -= 1 }
                    let next = take(&state)
                    if case .empty = next { state.parked += 1 }
                    return next
                }
                switch consume next {
                case .job(let job): return job
                case .exit: return nil
                case .empty: break
                }
                sleep.wait()
                woken = true
            }
        }
    }

    #if PlantedBugs
    /// The planted bug `poolParksWithoutRecheck`: holding `sleep`, the worker parks once without
    /// looking at the queue again.
    private func parkWithoutRecheck() {
        state.withLock { $0.parked += 1 }
        sleep.wait()
        state.withLock { $0.parked -= 1 }
    }
    #endif

    /// In a critical section of `state`: a job, an order to exit (surplus worker, or stopped and
    /// drained), or nothing.
    private func take(_ state: inout State) -> Take {
        if state.live - state.blocked > target {
            state.live -= 1
            return .exit
        }
        let slot = state.queue.pop()
        if !slot.isEmpty {
            pollers.mirror(state.queue.count)
            return .job(slot)
        }
        if state.stopping {
            state.live -= 1
            if state.live == 0 { exited.open() }
            return .exit
        }
        return .empty
    }
}
