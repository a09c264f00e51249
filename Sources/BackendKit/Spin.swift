#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Bounded busy-waiting before a thread parks: a hand-off that arrives within a few microseconds
/// skips the cost of sleeping on, and being woken from, a condition variable.
public enum Spin {
    /// Polls `ready` about `polls` times, yielding the processor after the first `busy` polls.
    /// Returns `true` as soon as `ready()` does, `false` if it never did.
    @inline(__always)
    public static func until(polls: Int = 2_100, busy: Int = 2_000, _ ready: () -> Bool) -> Bool {
        var index = 0
        while index < polls {
            if ready() { return true }
            if index >= busy { sched_yield() }
            index += 1
        }
        return false
    }
}
