import Foundation
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
        await withKnownIssue("the run's clock stops at the release: docs/CONFORMANCE.md, Known limits") {
            var inFlight = false
            for schedule in 0..<8 where !inFlight {
                let (record, result) = await Self.run(schedule: schedule)
                // The premise: the run was released by the seat blocked on the backend's lock.
                #expect(record.blockedOutsidePrimitives != nil, "schedule \(schedule): the run was not released by a blocked seat")
                let across = try Self.timedWait(Self.waitSteps.acrossTheRelease, in: record, schedule: schedule)
                inFlight = across.start.underControl && !across.returned.underControl
                let after = try Self.timedWait(Self.waitSteps.afterTheRelease, in: record, schedule: schedule)
                #expect(!after.start.underControl, "schedule \(schedule): d0's wait began on a seat, before the release")
                #expect(result.findings.isEmpty, "schedule \(schedule): \(result.findings)")
                #expect(
                    result.notReproducible.first?.contains("blocked outside ScheduleKit's primitives") == true,
                    "schedule \(schedule): \(result.notReproducible)")
            }
            #expect(inFlight, "no schedule of the first 8 had d2's timed wait in flight at the release")
        }
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
}
