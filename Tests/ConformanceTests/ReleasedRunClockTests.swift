import Foundation
import ScheduleKit
import Testing

@testable import Conformance

/// A seated run's event log is stamped with the run's own clock (`RunClock`), which moves only
/// while no seat can go on. A run released to go on natively (a seat blocked outside
/// ScheduleKit's primitives) has threads that read the system's clock from then on: a
/// `wait(timeout:)` begun under control gives up on the system's clock, seconds past the deadline
/// it took on the run's. Its stamps must tell the time those threads saw, or the timing checks
/// compare two clocks: with the run's clock stopped at the release, a correct backend was
/// reported as breaking C6.2 ("returned nil 0us after the call", "returned nil although t…
/// completed … before its deadline"; docs/CONFORMANCE.md, "Known limits").
@Suite(.serialized) struct ReleasedRunClockTests {
    /// The wait's timeout: shorter than the blocked-seat bound (0.5 s with a 1 s hang limit), so
    /// that a wait in flight at the release has its deadline behind it on the system's clock.
    static let timeout = Duration.milliseconds(200)

    /// d2 makes a held source t0 (the harness completes it only once every driver is done) and
    /// waits on it with `wait(timeout:)`: always nil. d0 and d1, once t0 exists, each make a
    /// source: both `makeSource` calls take the backend's own lock (`UninstrumentedLockBackend`),
    /// so on seats one of them blocks natively on it, in every schedule, and the run is released.
    /// No seat's clock can move before that, so d2's wait is in flight at the release or begun
    /// after it, never ended under control; d0 then waits on t0 too, always after the release.
    static let program = Program(
        seed: 29, drivers: 3, serialExecutors: 0, countingExecutors: 0,
        steps: [
            Step(driver: 2, operation: .makeSource(task: 0, held: .success), pause: .none),
            Step(driver: 2, operation: .waitTimeout(task: 0, microseconds: timeoutMicroseconds), pause: .none),
            Step(driver: 0, operation: .inspect(task: 0), pause: .none),
            Step(driver: 0, operation: .makeSource(task: 1, held: nil), pause: .none),
            Step(driver: 0, operation: .waitTimeout(task: 0, microseconds: timeoutMicroseconds), pause: .none),
            Step(driver: 1, operation: .inspect(task: 0), pause: .none),
            Step(driver: 1, operation: .makeSource(task: 2, held: nil), pause: .none),
            Step(driver: 0, operation: .complete(source: 1, outcome: .success, throwing: false), pause: .none),
            Step(driver: 1, operation: .complete(source: 2, outcome: .success, throwing: false), pause: .none)
        ])
    static var timeoutMicroseconds: Int { Int(timeout.nanoseconds / 1_000) }
    /// d2's timed wait (in flight at the release in most schedules) and d0's (after it in all).
    static let waitSteps = (acrossTheRelease: 1, afterTheRelease: 4)

    /// One seated run of `program` in `schedule` (0: the random walk's first), and its checks.
    static func run(schedule: Int) async -> (record: RunRecord, result: ProgramResult) {
        let pipeline = ProgramPipeline(
            makeBackend: { UninstrumentedLockBackend(.lockAcrossAPoint) }, configuration: SeatBlockedOutsideTests.configuration())
        let mode: ScheduleMode = .controlled(schedule == 0 ? .randomWalk : .schedule(schedule, of: .randomWalk))
        let (record, _) = await SeatBlockedOutsideTests.timedOnOwnThread { pipeline.runner.run(Self.program, mode: mode) }
        return (record, ProgramChecks.check(record, slack: pipeline.runner.timingSlack))
    }

    /// C6.2 on a correct backend (the threads backend's `wait(timeout:)`): each timed wait returns
    /// nil no earlier than its timeout after its call on the log's stamps, and the run, released
    /// by a seat blocked outside the primitives, has no finding (only its note). Judged over the
    /// random walk's schedules until one had d2's wait in flight at the release (begun on a seat,
    /// returned on a released thread), which must come (the same schedules on every run: each
    /// replays exactly up to its release); every schedule tried is judged, d0's wait in each.
    @Test func timedWaitsAcrossAndAfterTheReleaseAreStampedWithTheTimeTheirThreadsSaw() async throws {
        var inFlight = false
        for schedule in 0..<8 where !inFlight {
            let (record, result) = await Self.run(schedule: schedule)
            // The premise: the run was released by the seat blocked on the backend's lock.
            #expect(record.blockedOutsidePrimitives != nil, "schedule \(schedule): the run was not released by a blocked seat")
            let across = try Self.timedWait(Self.waitSteps.acrossTheRelease, in: record, schedule: schedule)
            inFlight = across.start.underControl && !across.returned.underControl
            let after = try Self.timedWait(Self.waitSteps.afterTheRelease, in: record, schedule: schedule)
            #expect(!after.start.underControl, "schedule \(schedule): d0's wait began on a seat, before the release")
            // Every stamp logged on a seat is before the release's first, every return after it at least that.
            let release = try #require(record.clockRelease, "schedule \(schedule): the record has no release of the run's clock")
            let early = record.timedEvents.filter { $0.underControl && $0.uptime >= release.firstStamp }
            #expect(early.isEmpty, "schedule \(schedule): logged on seats, stamped after the release: \(early)")
            #expect(across.returned.uptime >= release.firstStamp && after.returned.uptime >= release.firstStamp)
            #expect(result.findings.isEmpty, "schedule \(schedule): \(result.findings)")
            #expect(
                result.notReproducible.first?.contains("blocked outside ScheduleKit's primitives") == true,
                "schedule \(schedule): \(result.notReproducible)")
        }
        #expect(inFlight, "no schedule of the first 8 had d2's timed wait in flight at the release")
    }

    /// Step `step`'s `wait(timeout:)` call and return events, having checked that it returned nil
    /// (t0 is held until every driver is done) no earlier than its timeout after the call, on the
    /// log's stamps.
    static func timedWait(_ step: Int, in record: RunRecord, schedule: Int) throws -> (start: Event, returned: Event) {
        let start = try #require(
            record.timedEvents.first { if case .stepStart(step) = $0.kind { true } else { false } },
            "schedule \(schedule): the timed wait of step \(step) never started")
        let returned = try #require(
            record.timedEvents.first { if case .waited(step, _, _) = $0.kind { true } else { false } },
            "schedule \(schedule): the timed wait of step \(step) never returned")
        if case .waited(_, _, let outcome) = returned.kind {
            #expect(outcome == nil, "schedule \(schedule), step \(step): t0 is held, yet the wait returned \(String(describing: outcome))")
        }
        let elapsed = returned.uptime >= start.uptime ? returned.uptime - start.uptime : 0
        #expect(
            elapsed >= timeout.nanoseconds,
            "schedule \(schedule): step \(step)'s nil is stamped \(elapsed / 1_000)us after its call, before its \(timeout) timeout")
        return (start, returned)
    }

    /// The clock after its release follows the system's, later than every stamp before: from the
    /// system's when the run's clock lagged (it moved only to deadlines, never for the harness's
    /// own time), from the run's own plus the system's time since when it was ahead (a run whose
    /// waits timed out sooner than the system's clock got there).
    @Test func theReleasedClockFollowsTheSystemsFromTheLaterOfTheTwo() throws {
        let lagging = RunClock()
        let own = lagging.now
        lagging.release()
        let fromSystem = try #require(lagging.releasedAt)
        #expect(fromSystem.firstStamp > own)
        #expect(fromSystem.shift <= 1)
        let system = MonotonicClock.systemNow
        #expect(lagging.now >= max(system, fromSystem.firstStamp))

        let leading = RunClock()
        let ahead = MonotonicClock.systemNow + 10_000_000_000
        leading.set(ahead)
        leading.release()
        leading.release()  // The first release counts.
        let fromOwn = try #require(leading.releasedAt)
        #expect(fromOwn.firstStamp == ahead + 1)
        #expect(fromOwn.shift > 9_000_000_000 && fromOwn.shift <= 10_000_000_001)
        let before = MonotonicClock.systemNow
        let stamp = leading.now
        #expect(stamp >= ahead + 1 && stamp >= before + fromOwn.shift)
    }

    /// C5.4's upper bound across a release: a delay due before the release and seen completing
    /// after it is late only past the slack from the release (the harness held the run until
    /// then, the blocked-seat bound at least); judged from its own due time when there was no
    /// release, and still late when it missed the slack from the release too.
    @Test func aDelayDueBeforeTheReleaseIsJudgedLateFromTheRelease() {
        let called: UInt64 = 1_000_000_000
        let release = RunClock.Release(firstStamp: called + 3_000_000_000, shift: 0)
        #expect(Self.delayFindings(completedAt: release.firstStamp + 1_000_000, release: release).isEmpty)
        let withoutRelease = Self.delayFindings(completedAt: release.firstStamp + 1_000_000, release: nil)
        #expect(withoutRelease.map(\.rule) == [.c5_4], "\(withoutRelease)")
        let late = Self.delayFindings(completedAt: release.firstStamp + 2_500_000_000, release: release)
        #expect(late.map(\.rule) == [.c5_4], "\(late)")
        #expect(late.first?.expected.contains("counted from the controlled run's release") == true, "\(late)")
        // Called before a release at which the run's clock was ahead of the system's by `shift`,
        // due after it: counted on the system's clock by the released threads, it is due `shift`
        // later on the stamps (on time up to the slack after that, late past it).
        let ahead = RunClock.Release(firstStamp: called + 20_000, shift: 500_000_000)
        let bound = called + 10_000 + 1_000_000 + 500_000_000 + 2_000_000_000
        #expect(Self.delayFindings(completedAt: bound, release: ahead).isEmpty)
        #expect(Self.delayFindings(completedAt: bound + 1_000_000, release: ahead).map(\.rule) == [.c5_4])
    }

    /// The timing checks' findings on a run of `t0 = delay(1000us)` called at 1 s (on the log's
    /// stamps), returned 10 us later, and completed at `completedAt`, with a 2 s slack.
    static func delayFindings(completedAt: UInt64, release: RunClock.Release?) -> [Finding] {
        let program = Program(
            seed: 1, drivers: 1, serialExecutors: 0, countingExecutors: 0,
            steps: [Step(driver: 0, operation: .delay(task: 0, microseconds: 1_000, token: nil), pause: .none)])
        let called: UInt64 = 1_000_000_000
        let kinds: [(EventKind, UInt64)] = [
            (.stepStart(step: 0), called), (.stepEnd(step: 0), called + 10_000), (.completed(task: 0, outcome: .success(0)), completedAt)
        ]
        let events = kinds.enumerated().map { index, event in
            Event(seq: UInt64(index), thread: 1, driver: 1, uptime: event.1, kind: event.0, underControl: false)
        }
        let observations = Observations(events)
        let checkers = Checkers(program: program, observations: observations, snapshot: [false])
        var timing = TimingChecks(
            program: program, observations: observations, oracle: checkers.oracle, events: events, slack: .seconds(2),
            clockRelease: release)
        timing.runAll()
        return timing.findings
    }
}
