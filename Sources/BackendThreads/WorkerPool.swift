import BackendKit
import Synchronization

/// The worker pool behind a threads backend: a FIFO run queue and the POSIX threads that drain it.
///
/// - Workers: `target` of them, started lazily (when a job finds no idle worker), never more
///   than `target` running unless some are blocked in `wait()`.
/// - Blocking (C6.4): a worker that blocks in `wait()` is counted as blocked; while fewer than
///   `target` workers are unblocked and jobs are waiting for a thread, the pool starts a
///   replacement worker. A worker that finds more than `target` unblocked workers once it is
///   done with its job exits, so the pool shrinks back.
/// - Idle workers spin briefly on an atomic mirror of the queue length before parking on the
///   condition variable (`IdleSpinners`); at most half of them spin at once.
/// - Shutdown: `stop()` (called when the last handle to the pool goes away) makes workers exit
///   once the queue is empty; jobs already queued still run, each exactly once (C7.3).
///
/// Worker threads hold only this object, never the backend or an executor, so dropping the
/// backend is what ends them.
final class PoolCore: BlockingPool {
    private struct State {
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
        case job(Job)
        case exit
        case empty
    }

    /// The number of unblocked workers the pool aims for.
    let target: Int
    /// The most workers beyond `target` started for blocked ones (`BlockingThreads`).
    let limit: Int
    private let state: ConditionLock<State>
    /// Idle workers polling the queue length before they park (at most half the workers).
    private let spinners: IdleSpinners
    /// Opens once the pool was stopped and its last worker has exited.
    let exited = Latch()

    init(workers: Int, maxBlockedThreads: Int) {
        target = workers
        limit = maxBlockedThreads
        spinners = IdleSpinners(limit: target / 2)
        state = ConditionLock(State())
    }

    /// Queues `job` at the tail of the run queue; some worker runs it, exactly once (C7.3).
    func push(_ job: @escaping Job) {
        state.lock()
        state.guarded.queue.push(job)
        let count = state.guarded.queue.count
        spinners.mirror(count)
        let spinning = spinners.count
        // Spinning workers will each take a job before they park; wake a sleeper only for the
        // jobs they cannot cover.
        if state.guarded.parked > 0 && count > spinning { state.signal() }
        let (spawn, report) = state.guarded.claimWorker(target: target, limit: limit, spinning: spinning)
        state.unlock()
        if report { reportLimit() }
        if spawn { startWorker() }
    }

    /// Called by a worker about to block (C6.4): starts a replacement if jobs are waiting.
    func willBlock() {
        state.lock()
        state.guarded.blocked += 1
        let (spawn, report) = state.guarded.claimWorker(
            target: target, limit: limit, spinning: spinners.count)
        state.unlock()
        if report { reportLimit() }
        if spawn { startWorker() }
    }

    private func reportLimit() {
        BackendDiagnostics.report(.init(backend: "threads", limit: limit))
    }

    /// Called by a worker whose blocking call returned.
    func didUnblock() {
        state.withLock { $0.blocked -= 1 }
    }

    /// Lets workers exit once the queue is empty. Idempotent.
    func stop() {
        let none = state.withLock { state -> Bool in
            state.stopping = true
            return state.live == 0
        }
        state.broadcast()
        if none { exited.open() }
    }

    private func startWorker() {
        let spawned = NativeThread.spawn(name: "threads-worker") { [self] in
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
        ThreadRuntime.current.pool = self
        while let job = nextJob() {
            job()
        }
        ThreadRuntime.current.pool = nil
    }

    /// The next job for the calling worker, or `nil` if it must exit. Spins, then parks.
    private func nextJob() -> Job? {
        while true {
            state.lock()
            let first = take()
            state.unlock()
            switch first {
            case .job(let job): return job
            case .exit: return nil
            case .empty: break
            }
            if spinners.spin() { continue }
            state.lock()
            defer { state.unlock() }
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

    /// Under the lock: a job, an order to exit (surplus worker, or stopped and drained), or nothing.
    private func take() -> Take {
        if state.guarded.live - state.guarded.blocked > target {
            state.guarded.live -= 1
            return .exit
        }
        if let job = state.guarded.queue.pop().job {
            spinners.mirror(state.guarded.queue.count)
            return .job(job)
        }
        if state.guarded.stopping {
            state.guarded.live -= 1
            if state.guarded.live == 0 { exited.open() }
            return .exit
        }
        return .empty
    }
}
