import Dispatch
import Foundation

/// The harness's one clock: monotonic nanoseconds since boot (`DispatchTime`'s uptime). It stamps
/// every event (`Event.uptime`, the timing rules' clock) and is the clock of every deadline; the
/// wall clock never is (a wall clock set back or forward would stretch or cut a wait).
struct Uptime: Comparable, Hashable, Sendable {
    let nanoseconds: UInt64

    static var now: Uptime { Uptime(nanoseconds: DispatchTime.now().uptimeNanoseconds) }
    /// A deadline that never passes.
    static let distantFuture = Uptime(nanoseconds: .max)

    var hasPassed: Bool { Uptime.now >= self }
    /// How long until this moment (zero once it passed).
    var remaining: Duration { self > .now ? self - .now : .zero }
    /// The same moment for Dispatch's waits, which count on the same clock.
    var dispatchTime: DispatchTime { DispatchTime(uptimeNanoseconds: nanoseconds) }

    static func < (lhs: Uptime, rhs: Uptime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// `duration` later, saturating (a negative duration counts as zero).
    static func + (lhs: Uptime, rhs: Duration) -> Uptime {
        let (sum, overflow) = lhs.nanoseconds.addingReportingOverflow(rhs.nanoseconds)
        return Uptime(nanoseconds: overflow ? .max : sum)
    }

    /// The time from `rhs` to `lhs` (zero if `rhs` is later).
    static func - (lhs: Uptime, rhs: Uptime) -> Duration {
        lhs.nanoseconds > rhs.nanoseconds ? .nanoseconds(Int64(clamping: lhs.nanoseconds - rhs.nanoseconds)) : .zero
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    /// Whole nanoseconds, 0 for a negative duration, saturating for a huge one.
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        let (sum, carry) = whole.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        return carry ? .max : sum
    }
}

extension NSCondition {
    /// Waits (holding the lock, as `wait()`) until signalled or `deadline`; `false` once the
    /// deadline passed. The monotonic deadline is what counts: the wall-clock date the wait
    /// takes is recomputed for each slice of at most 100 ms, so a wall clock that jumps can
    /// only wake it early, never keep it past its deadline for longer than a slice.
    func wait(until deadline: Uptime) -> Bool {
        let remaining = deadline.remaining
        guard remaining > .zero else { return false }
        let slice = min(remaining, .milliseconds(100))
        _ = wait(until: Date(timeIntervalSinceNow: slice.seconds))
        return !deadline.hasPassed
    }
}
