import ScheduleKit
import Synchronization
import TaskAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bounded busy-waiting before a thread parks: a hand-off that arrives within a few microseconds
/// skips the cost of sleeping on, and being woken from, a condition variable.
///
/// While a controlled run is active (`SchedulePoint.isActive`), on any thread, it polls once and
/// returns: spinning is only an optimization (the caller parks on a condition afterwards, which
/// the run schedules), and a thread spinning outside the run's control would take a seat's work
/// uncontrolled.
public enum Spin {
    /// Polls `ready` about `polls` times, yielding the processor after the first `busy` polls.
    /// Returns `true` as soon as `ready()` does, `false` if it never did.
    @inline(__always)
    public static func until(polls: Int = 2_100, busy: Int = 2_000, _ ready: () -> Bool) -> Bool {
        if SchedulePoint.isActive { return ready() }
        var index = 0
        while index < polls {
            if ready() { return true }
            if index >= busy {
                // A run that began while this thread spins: stop at the next yield.
                if SchedulePoint.isActive { return false }
                sched_yield()
            }
            index += 1
        }
        return false
    }
}
