import ScheduleKit
import Synchronization
import TaskAPI

/// A one-shot timer: a Swift task on the backend's pool that sleeps with `Task.sleep`, then runs
/// the job on a pool thread. The sleeping task owns the job, so dropping the handle does not stop
/// the timer; disposing cancels the sleep and releases the job at once (C5.4, C8.1).
struct ActorsTimer: Disposable {
    private let slot: JobSlot
    private let sleeper: Task<Void, Never>

    init(after delay: Duration, on poolExecutor: PoolExecutor, _ job: @escaping @Sendable () -> Void) {
        let slot = JobSlot(job)
        self.slot = slot
        sleeper = Task.detached(executorPreference: poolExecutor) {
            // The sleeping task keeps the pool alive, as a pending timer of the threads backend
            // does: its resumption (fired or disposed) is enqueued on the pool, whose handle may
            // be the last reference once the backend is released. Held here explicitly, whatever
            // the runtime does with an executor preference (TaskAPI's `runAsync` does the same).
            defer { withExtendedLifetime(poolExecutor) {} }
            do {
                try await Task.sleep(for: delay)
            } catch {
                return
            }
            slot.take()?()
        }
    }

    func dispose() {
        _ = slot.take()
        sleeper.cancel()
    }
}

/// Holds a job until it is taken, once: by the timer firing or by `dispose`.
private final class JobSlot: Sendable {
    private let job: Locked<(@Sendable () -> Void)?>

    init(_ job: @escaping @Sendable () -> Void) {
        self.job = Locked(job)
    }

    func take() -> (@Sendable () -> Void)? {
        job.withLock { job in
            defer { job = nil }
            return job
        }
    }
}
