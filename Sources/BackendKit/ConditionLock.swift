#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pthread mutex and condition variable guarding a value: the kit's one blocking primitive.
/// Backends use it for run queues, timer threads and idle workers; the kit for blocked `wait()`
/// callers.
///
/// `guarded` may only be touched between `lock()` and `unlock()` (or inside `withLock`). Waiting
/// loops read and write it in short accesses around `wait()`, never across one.
public final class ConditionLock<State>: @unchecked Sendable {
    // @unchecked Sendable: `guarded` is only read or written while `mutex` is held, which
    // orders every access; the pointers are set once in `init` and freed once in `deinit`.

    // pthread objects must not move once initialised, so they live in manually allocated memory
    // (a stored property of a class could be moved or accessed through a temporary copy).
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    /// The protected value. Access only while locked.
    // @exclusivity(unchecked): the mutex serializes every access, and each is a short read or
    // write that calls out to nothing (waiting loops never hold one across `wait()`); the dynamic
    // check cost a thread-local lookup and an access-set insertion per access, on every job of a
    // pool's queue.
    @exclusivity(unchecked) public var guarded: State

    public init(_ initial: State) {
        guarded = initial
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        #if canImport(Glibc)
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

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// Runs `body` with the value, under the lock.
    @inline(__always)
    public func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&guarded)
    }

    /// Releases the lock, sleeps until signalled (or spuriously), and takes the lock again.
    /// Call only while locked, and re-check the condition afterwards.
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// Like `wait()`, but returns `false` once `deadline` (monotonic nanoseconds) has passed.
    public func wait(until deadline: UInt64) -> Bool {
        #if canImport(Glibc)
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
    public func signal() { pthread_cond_signal(condition) }

    /// Wakes every thread sleeping in `wait`. May be called locked or not.
    public func broadcast() { pthread_cond_broadcast(condition) }
}
