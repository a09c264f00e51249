import ScheduleKit
import Synchronization

/// A seated run's clock (`MonotonicClock` nanoseconds): the seats' `now` and the event log's
/// stamps. It starts at the system's and, while the run is under control, moves only when the
/// run is quiescent, to the earliest deadline, so timed waits time out in the same order, at the
/// same stamps, on every replay.
///
/// Once the run is released (`release()`: at its end, or given up to go on natively), its
/// threads are no controlling seats any more and read the system's clock (`MonotonicClock.now`),
/// and so does this one from then on: the system's clock, plus the run's clock's lead over it at
/// the release if it was ahead (the run's clock usually lags: it did not count the time the
/// harness itself took, the blocked-seat bound included). So every stamp after the release is
/// later than every stamp before it, and at least the time the logging thread saw before it
/// logged: a `wait(timeout:)` begun under control, which gives up on the system's clock once
/// released, is stamped at or after the deadline it gave up at. Stopped at the release, as it
/// was, its stamps called a correct backend's waits early (C6.2, docs/CONFORMANCE.md, "Found and
/// fixed").
final class RunClock: Sendable {
    // Written by the loop's thread holding the seat table's lock (`set` only while the run is
    // under control, `release` once); read by any thread without it.
    private let nanoseconds: Atomic<UInt64>
    private let released = Atomic<Bool>(false)
    /// Once released: what the stamps add to the system's clock, and the first stamp possible.
    private let shift = Atomic<UInt64>(0)
    private let firstStampAfterRelease = Atomic<UInt64>(0)

    init() {
        nanoseconds = Atomic(MonotonicClock.systemNow)
    }

    var now: UInt64 {
        // Acquiring: a reader that sees the release sees its shift.
        if released.load(ordering: .acquiring) { return MonotonicClock.systemNow &+ shift.load(ordering: .relaxed) }
        return nanoseconds.load(ordering: .relaxed)
    }

    /// Moves the run's own time (under control only: once released, the clock follows the system's).
    func set(_ value: UInt64) {
        precondition(!released.load(ordering: .relaxed), "RunClock.set(\(value)) after the run's release")
        nanoseconds.store(value, ordering: .relaxed)
    }

    /// From now on the clock follows the system's (the first call counts; later ones change
    /// nothing). Called before the seats learn of the release, so that a thread that reads the
    /// system's clock because the run was released stamps its events on it too.
    func release() {
        guard !released.load(ordering: .relaxed) else { return }
        let own = nanoseconds.load(ordering: .relaxed)
        let system = MonotonicClock.systemNow
        // Strictly later than every stamp before: `own + 1` when the run's clock was ahead.
        let lead = own >= system ? own - system + 1 : 0
        shift.store(lead, ordering: .relaxed)
        firstStampAfterRelease.store(system + lead, ordering: .relaxed)
        released.store(true, ordering: .releasing)
    }

    /// The release, once there was one.
    var releasedAt: Release? {
        guard released.load(ordering: .acquiring) else { return nil }
        return Release(firstStamp: firstStampAfterRelease.load(ordering: .relaxed), shift: shift.load(ordering: .relaxed))
    }

    /// Where a seated run's stamps went from the run's own clock to the system's (`release()`),
    /// for the timing checks (`TimingChecks`): a moment due before the release and seen after it
    /// was held up by the harness, not by the backend, until the release.
    struct Release: Sendable, Equatable {
        /// The first stamp after the release: every event logged under control is stamped
        /// earlier, every one logged by a thread that saw the release at least this.
        let firstStamp: UInt64
        /// What the stamps after the release add to the system's clock: the run's clock's lead
        /// over it at the release, 0 when it lagged (nearly always).
        let shift: UInt64

        /// The earliest stamp at which a backend can be held to have done, as seen at stamp
        /// `moment`, something due `due` nanoseconds after stamp `reference`: `reference + due`,
        /// unless `reference` is before the release and `moment` after it. Then the harness held
        /// the run until the release, and the released threads count the deadline on the
        /// system's clock: it is due at the release at the soonest, and `shift` later on the
        /// stamps.
        func dueStamp(_ reference: UInt64, plus due: UInt64, seenAt moment: UInt64) -> UInt64 {
            let plain = Self.adding(reference, due)
            guard reference < firstStamp, moment >= firstStamp else { return plain }
            return max(Self.adding(plain, shift), firstStamp)
        }

        private static func adding(_ a: UInt64, _ b: UInt64) -> UInt64 {
            let (sum, overflow) = a.addingReportingOverflow(b)
            return overflow ? .max : sum
        }
    }
}
