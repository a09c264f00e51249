#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BackendKit
import Synchronization
import TaskAPI

/// The default executor (C7.2): a `TaskExecutor` backed by threads of its own that it can grow.
///
/// It runs two kinds of work from one FIFO queue: closures handed to `execute` (bodies and
/// continuations), and Swift jobs of tasks started with `Task(executorPreference:)` (timers,
/// `runAsync`). Normally it keeps as many threads busy as there are cores. A worker that blocks in
/// `wait()` reports it, and while it is blocked the pool may start another thread, so blocking
/// waits nested in bodies never starve the pool (C6.4). Swift's cooperative pool is never blocked
/// by this backend. A thread exits after two idle seconds (the pool starts threads on demand), so
/// an unused pool ends its threads and, with its last one, is freed. An idle worker
/// spins briefly on an atomic mirror of the queue length before it parks (at most half the
/// workers spin at once): a round trip that comes back within microseconds then costs no
/// wake-up, which on these machines is 15 to 30 us.
final class WorkerPool: TaskAPI.Executor, TaskExecutor, BlockingPool, @unchecked Sendable {
    // @unchecked Sendable: every mutable field is only touched holding `parker`'s mutex.

    private let parker = ConditionLock(())
    /// Closures and Swift jobs, in push order: BackendKit's ring, which moves a job in and out
    /// without a thunk or an allocation.
    private var queue = JobRing(keptCapacity: 4_096)
    /// Threads alive, threads asleep waiting for work, wakeups sent but not yet taken, threads
    /// blocked in `wait()`.
    private var threads = 0
    private var idle = 0
    private var wakeups = 0
    private var blocked = 0
    private var limitReported = false
    private let width: Int
    /// The most threads beyond `width` started for blocked workers (`BlockingThreads`).
    let limit: Int
    /// Idle workers polling the queue length before they park (at most half the width).
    private let spinners: IdleSpinners

    /// The pool every `ActorsBackend()` shares.
    static let shared = WorkerPool(limit: BlockingThreads.defaultLimit)

    init(width: Int = max(2, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))), limit: Int) {
        self.width = width
        self.limit = limit
        spinners = IdleSpinners(limit: width / 2)
    }

    func execute(_ job: @escaping @Sendable () -> Void) {
        push(job)
    }

    /// A Swift job (a task started with this pool as its preferred executor) in a closure: one
    /// allocation, where the closures of `execute` (every body and continuation) need none.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        push { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
    }

    private func push(_ job: @escaping @Sendable () -> Void) {
        let (spawn, report) = locked {
            queue.push(job)
            let count = queue.count
            spinners.mirror(count)
            // A spinning worker takes the work before it parks: wake a sleeper only for more.
            if count <= spinners.count { return (false, false) }
            return wakeOrGrow()
        }
        if report { reportLimit() }
        if spawn { startThread() }
    }

    /// Wakes an idle worker if one is asleep; otherwise `spawn` if the caller must start a thread
    /// because fewer than `width` threads are running work and the limit allows; `report` the
    /// first time the limit stops it. Holding the mutex.
    private func wakeOrGrow() -> (spawn: Bool, report: Bool) {
        if idle > wakeups {
            wakeups += 1
            parker.signal()
            return (false, false)
        }
        guard threads - idle - blocked < width else { return (false, false) }
        guard threads < width + limit else {
            defer { limitReported = true }
            return (false, !limitReported)
        }
        threads += 1
        return (true, false)
    }

    /// A worker is about to block in `wait()`: if work is queued, let another thread take it.
    func willBlock() {
        let (spawn, report) = locked {
            blocked += 1
            return queue.isEmpty ? (false, false) : wakeOrGrow()
        }
        if report { reportLimit() }
        if spawn { startThread() }
    }

    private func reportLimit() {
        BackendDiagnostics.report(.init(backend: "actors", limit: limit))
    }

    func didUnblock() {
        locked { blocked -= 1 }
    }

    /// The oldest job, holding the mutex: a slot, so that the closure leaves the critical
    /// section without a thunk (see `JobRing.Slot`).
    private func pop() -> JobRing.Slot {
        let slot = queue.pop()
        spinners.mirror(queue.count)
        return slot
    }

    /// The loop of one worker thread.
    fileprivate func work() {
        ThreadRuntime.current.pool = self
        while let job = next() {
            job()
        }
    }

    /// The next work item, spinning a little and then sleeping while there is none; `nil` when
    /// this thread should exit.
    private func next() -> JobRing.Job? {
        parker.lock()
        let first = pop()
        parker.unlock()
        if let job = first.job { return job }
        _ = spinners.spin()
        // `wait` releases the mutex while it sleeps: the loop holds it with lock/unlock. The
        // queue is read again under the mutex first, so work pushed while this worker spun (with
        // no wake-up, since it counted as spinning) is taken, never slept on.
        parker.lock()
        defer { parker.unlock() }
        while true {
            if let job = pop().job { return job }
            idle += 1
            let woken = parker.wait(until: MonotonicClock.now + 2_000_000_000)
            idle -= 1
            if wakeups > 0 { wakeups -= 1 }
            // Two idle seconds end any worker, not only one beyond the core count: the pool
            // starts threads again on demand, and a pool of its own
            // (`ActorsBackend(maxBlockedThreads:)`) that nothing uses any more is freed with
            // its last thread instead of keeping `width` threads for the life of the process.
            if !woken, queue.isEmpty {
                threads -= 1
                return nil
            }
        }
    }

    /// Runs `body` holding the pool's mutex. The fields are the pool's own, not the lock's value
    /// (which is empty): no exclusive access spans the critical section.
    private func locked<R>(_ body: () -> R) -> R {
        parker.lock()
        defer { parker.unlock() }
        return body()
    }

    private func startThread() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            // Balances the `passRetained` above: the thread owns one reference to its pool.
            guard let context else { return nil }
            let pool = Unmanaged<WorkerPool>.fromOpaque(context).takeRetainedValue()
            pool.work()
            return nil
        }, context)
        if result == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<WorkerPool>.fromOpaque(context).release()
            locked { threads -= 1 }
        }
    }
}
