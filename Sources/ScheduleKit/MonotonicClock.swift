#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Monotonic time in nanoseconds: the clock of every deadline in the kit and its backends, so
/// that a wall-clock change cannot stretch a timeout.
///
/// On a seat of a controlled run it is the run's clock (`ScheduleSeat.now`), which moves only
/// when every seat is blocked, to the earliest deadline: timed waits then time out in the same
/// order on every replay.
public enum MonotonicClock {
    public static var now: UInt64 {
        if SchedulePoint.isActive, let now = SchedulePoint.seatNow() { return now }
        return systemNow
    }

    /// The system's monotonic clock, whatever the thread.
    public static var systemNow: UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// `now + duration`, saturating; a negative duration gives `now`.
    public static func deadline(after duration: Duration) -> UInt64 {
        let (sum, overflow) = now.addingReportingOverflow(nanoseconds(duration))
        return overflow ? .max : sum
    }

    /// `duration` in whole nanoseconds: 0 for a negative duration, `UInt64.max` (never) for one
    /// too long to represent.
    public static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
        let (wholeNanos, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        let (sum, overflow2) = wholeNanos.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        return overflow2 ? .max : sum
    }
}
