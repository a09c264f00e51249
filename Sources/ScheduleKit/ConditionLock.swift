import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A pthread mutex and condition variable guarding a value: the blocking primitive of BackendKit
/// and its backends (run queues, timer threads, idle workers, blocked `wait()` callers), and of
/// any backend that wants one a controlled run can schedule.
///
/// The value may be non-copyable (BackendKit's `JobRing` is). `guarded` may only be touched
/// between `lock()` and `unlock()` (or inside `withLock`). Waiting loops read and write it in
/// short accesses around `wait()`, never across one.
///
/// While a controlled run is active (`SchedulePoint.isActive`), on one of its seats: `lock()`
/// is a point, then a try-lock, the seat blocked while another holds the lock; `unlock()`
/// reports the release (then a point); `wait()` registers the seat as a waiter, then releases
/// the lock (so a signal by whoever takes it next is never lost) and blocks the seat until a
/// signal (a timed wait also until the run's clock passes its deadline), then takes the lock
/// again as `lock()` does; `signal()` and `broadcast()` are a point, then wake waiting seats as
/// well as native waiters. A thread that waits natively (no seat: it waited since before the
/// run) and is woken by a seat's signal becomes a seat when it comes back (`ScheduleController
/// .adoptWoken`). Without a controlled run, each operation costs one relaxed load and a branch
/// more than the pthread call.
public final class ConditionLock<State: ~Copyable>: @unchecked Sendable {
    // @unchecked Sendable: `guarded` is only read or written while `mutex` is held, which
    // orders every access; the pointers are set once in `init` and freed once in `deinit`;
    // `nativeWaiters` is atomic.

    // pthread objects must not move once initialised, so they live in manually allocated memory
    // (a stored property of a class could be moved or accessed through a temporary copy).
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline let condition: UnsafeMutablePointer<pthread_cond_t>
    /// Names the lock in a controlled run's reports.
    @usableFromInline let label: StaticString
    /// Threads waiting natively (no seat of a controlled run): how many a seat's signal may wake.
    @usableFromInline let nativeWaiters = Atomic<Int>(0)

    /// The protected value. Access only while locked.
    // @exclusivity(unchecked): the mutex serializes every access, and each is a short read or
    // write that calls out to nothing (waiting loops never hold one across `wait()`); the dynamic
    // check cost a thread-local lookup and an access-set insertion per access, on every job of a
    // pool's queue. The attribute holds only for accesses compiled in this module: another
    // module's access to a public stored property is checked dynamically whatever the
    // declaration says, so the value is reached through accessors whose inlinable bodies are
    // this module's.
    @usableFromInline @exclusivity(unchecked) var storage: State

    @inlinable
    public var guarded: State {
        _read { yield storage }
        _modify { yield &storage }
    }

    /// A lock guarding `initial`; `label` names it in a controlled run's reports.
    public init(_ initial: consuming State, label: StaticString = "ConditionLock") {
        storage = initial
        self.label = label
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        #if canImport(Glibc) || canImport(Musl)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        // Deadlines are on the monotonic clock, so a wall-clock change cannot stretch a timeout.
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
        #else
        pthread_cond_init(condition, nil)
        #endif
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// The lock's identity for a controlled run.
    @usableFromInline var lockObject: SchedulePoint.Object { SchedulePoint.Object(address: UInt(bitPattern: mutex)) }
    /// The condition's identity for a controlled run.
    @usableFromInline var conditionObject: SchedulePoint.Object { SchedulePoint.Object(address: UInt(bitPattern: condition)) }

    /// Whether the holder took the lock while a controlled run was active: its `unlock()` then
    /// reports the release. A field under the lock, so that `unlock()` reads no global flag.
    @usableFromInline @exclusivity(unchecked) var heldUnderControl = false

    @inlinable
    public func lock() {
        if SchedulePoint.isActive {
            lockUnderControl()
        } else {
            pthread_mutex_lock(mutex)
        }
    }

    @inlinable
    public func unlock() {
        if heldUnderControl {
            unlockUnderControl()
        } else {
            pthread_mutex_unlock(mutex)
        }
    }

    @usableFromInline @inline(never)
    func lockUnderControl() {
        SchedulePoint.acquire(
            lockObject, label: label,
            tryLock: { pthread_mutex_trylock(mutex) == 0 },
            isTaken: { isTaken() },
            lockNatively: { pthread_mutex_lock(mutex) })
        heldUnderControl = true
    }

    /// Whether the lock is held (by any thread), for a seat that found it taken and registered
    /// as blocked on it (`ScheduleSeat.lockBusy`): a try-lock, let go at once if it succeeded.
    @usableFromInline
    func isTaken() -> Bool {
        guard pthread_mutex_trylock(mutex) == 0 else { return true }
        pthread_mutex_unlock(mutex)
        return false
    }

    @usableFromInline @inline(never)
    func unlockUnderControl() {
        heldUnderControl = false
        pthread_mutex_unlock(mutex)
        SchedulePoint.released(lockObject, label: label)
    }

    /// Runs `body` with the value, under the lock.
    @inlinable @inline(__always)
    public func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body(&guarded)
    }

    /// Releases the lock, sleeps until signalled (or spuriously), and takes the lock again.
    /// Call only while locked, and re-check the condition afterwards.
    @inlinable
    public func wait() {
        if SchedulePoint.isActive, waitUnderControl(until: nil) != nil { return }
        _ = waitNatively(until: nil)
    }

    /// Like `wait()`, but returns `false` once `deadline` (`MonotonicClock` nanoseconds) has
    /// passed.
    @inlinable
    public func wait(until deadline: UInt64) -> Bool {
        if SchedulePoint.isActive, let signalled = waitUnderControl(until: deadline) {
            return signalled
        }
        return waitNatively(until: deadline)
    }

    /// A wait on a seat of a controlled run: `nil` if the calling thread is none.
    @usableFromInline @inline(never)
    func waitUnderControl(until deadline: UInt64?) -> Bool? {
        guard let seat = SchedulePoint.controllingSeat else { return nil }
        // Still locked: the seat registers the wait before it lets the lock go, so a thread that
        // takes the lock next, changes the state and signals (a thread that is no seat may) finds
        // it waiting. Unlocked first, that signal could come before the registration and be lost.
        let signalled = seat.conditionWait(conditionObject, releasing: lockObject, deadline: deadline, label: label) {
            pthread_mutex_unlock(mutex)
        }
        // Picked to run again: no point before the try-lock.
        while pthread_mutex_trylock(mutex) != 0 { seat.lockBusy(lockObject, label: label, isTaken: isTaken) }
        seat.lockAcquired(lockObject, label: label)
        heldUnderControl = true
        return signalled
    }

    @usableFromInline
    func waitNatively(until deadline: UInt64?) -> Bool {
        nativeWaiters.wrappingAdd(1, ordering: .relaxed)
        let signalled: Bool
        if let deadline {
            signalled = timedWait(until: deadline)
        } else {
            pthread_cond_wait(condition, mutex)
            signalled = true
        }
        nativeWaiters.wrappingSubtract(1, ordering: .relaxed)
        if SchedulePoint.isActive {
            heldUnderControl = true
            SchedulePoint.wokenNatively(by: conditionObject, holding: lockObject)
        }
        return signalled
    }

    private func timedWait(until deadline: UInt64) -> Bool {
        #if canImport(Glibc) || canImport(Musl)
        var time = timespec(
            tv_sec: Int(clamping: deadline / 1_000_000_000),
            tv_nsec: Int(deadline % 1_000_000_000)
        )
        return pthread_cond_timedwait(condition, mutex, &time) != ETIMEDOUT
        #else
        let now = MonotonicClock.now
        if deadline <= now { return false }
        let remaining = deadline - now
        var time = timespec(
            tv_sec: Int(clamping: remaining / 1_000_000_000),
            tv_nsec: Int(remaining % 1_000_000_000)
        )
        return pthread_cond_timedwait_relative_np(condition, mutex, &time) != ETIMEDOUT
        #endif
    }

    /// Wakes one thread sleeping in `wait`. May be called locked or not.
    @inlinable
    public func signal() {
        if SchedulePoint.isActive { signalUnderControl(all: false) }
        pthread_cond_signal(condition)
    }

    /// Wakes every thread sleeping in `wait`. May be called locked or not.
    @inlinable
    public func broadcast() {
        if SchedulePoint.isActive { signalUnderControl(all: true) }
        pthread_cond_broadcast(condition)
    }

    @usableFromInline @inline(never)
    func signalUnderControl(all: Bool) {
        SchedulePoint.signalled(
            conditionObject, lock: lockObject, all: all,
            nativeWaiters: nativeWaiters.load(ordering: .relaxed), label: label)
    }
}
