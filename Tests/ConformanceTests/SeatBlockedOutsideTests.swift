import Conformance
import Synchronization
import TaskAPI
import Testing

/// A seated run whose seat holding the baton blocks outside ScheduleKit's primitives (on a lock of
/// the backend's own that a paused seat holds) reaches no schedule point: natively the other seat
/// would have let the lock go, so the deadlock is the harness's serializing, not the backend's.
/// The run is released to go on natively and checked as any native run: no finding when it
/// finishes and its checks pass, only a note that it is not reproducible; a hang with a rule when
/// it stays hung natively (`SeatedRun`, `ProgramRunner.blockedSeatLimit`).
@Suite struct SeatBlockedOutsideTests {
    /// A 1 s hang limit: the seat is released after 0.5 s, and the run gets 0.5 s more natively.
    static func configuration() -> ConformanceConfiguration {
        var configuration = ConformanceConfiguration(hangLimit: .seconds(1), output: { _ in })
        configuration.resourceLinks = 0
        return configuration
    }

    /// Two drivers each make a source (both `makeSource` calls take the backend's own lock) and
    /// complete it.
    static let program = Program(
        seed: 7, drivers: 2, serialExecutors: 0, countingExecutors: 0,
        steps: [
            Step(driver: 0, operation: .makeSource(task: 0, held: nil), pause: .none),
            Step(driver: 1, operation: .makeSource(task: 1, held: nil), pause: .none),
            Step(driver: 0, operation: .complete(source: 0, outcome: .success, throwing: false), pause: .none),
            Step(driver: 1, operation: .complete(source: 1, outcome: .success, throwing: false), pause: .none)
        ])

    /// The harness's serializing, not the backend: a driver blocked natively on the lock the other,
    /// paused, driver holds is released with the rest of the run, which finishes natively and
    /// passes every check (C1.1, C2.1: both tasks complete, no hang reported); the run is only
    /// marked not reproducible, with a note naming the seat, its last point and why.
    @Test func aSeatBlockedOnALockOfTheBackendsOwnIsReleasedNotReported() async throws {
        let backend = UninstrumentedLockBackend(.lockAcrossAPoint)
        let run = await Conformance.runProgram(
            backend, program: Self.program, mode: .controlled(.randomWalk), configuration: Self.configuration())
        // The premise: on seats, a driver did block natively on the backend's lock.
        #expect(backend.contended.load(ordering: .relaxed) >= 1, "no makeSource found the lock taken")
        #expect(run.findings.isEmpty, "\(run.findings)")
        #expect(!run.abandoned)
        let note = try #require(run.notReproducible.first, "the released run is not marked not reproducible")
        #expect(note.contains("blocked outside ScheduleKit's primitives"), "\(note)")
        #expect(note.contains("reached no schedule point within"), "\(note)")
        #expect(note.contains("(driver d0)") || note.contains("(driver d1)"), "the note names no driver seat: \(note)")
        #expect(note.contains("its last one: "), "\(note)")
        #expect(note.contains("WRITING_A_BACKEND.md"), "\(note)")
    }

    /// Natively the same program needs no release: it passes and is nothing to replay.
    @Test func theSameProgramPassesNatively() async {
        let backend = UninstrumentedLockBackend(.lockAcrossAPoint)
        let run = await Conformance.runProgram(backend, program: Self.program, mode: .stress, configuration: Self.configuration())
        #expect(run.findings.isEmpty, "\(run.findings)")
        #expect(run.notReproducible.isEmpty, "\(run.notReproducible)")
    }

    /// A backend that deadlocks natively outside the primitives (a semaphore nothing signals) is
    /// still a hang with a rule: the driver never returned from `makeSource` (C2.1), and the
    /// finding keeps the blocked seat's text and says the release did not help.
    @Test func aSeatStillBlockedNativelyIsAHangWithARule() async throws {
        let backend = UninstrumentedLockBackend(.deadlocks)
        let run = await Conformance.runProgram(
            backend, program: Self.program, mode: .controlled(.randomWalk), configuration: Self.configuration())
        backend.unblock()
        let finding = try #require(run.findings.first, "a true deadlock was not reported")
        #expect(finding.rule == .c2_1, "\(finding)")
        #expect(run.abandoned)
        #expect(finding.message.contains("reached no schedule point within"), "\(finding.message)")
        #expect(finding.observed.contains("released to go on natively"), "\(finding.observed)")
        #expect(finding.observed.contains("never returned from the backend"), "\(finding.observed)")
        #expect(!run.notReproducible.contains { $0.contains("blocked outside ScheduleKit's primitives") }, "\(run.notReproducible)")
    }

    /// The report a user reads says how many controlled programs had a seat blocked outside the
    /// primitives, that the harness could not control that part of the backend, and what to do,
    /// and counts no failure for them.
    @Test func theReportSaysWhichPartTheHarnessCouldNotControl() async {
        var configuration = Self.configuration()
        configuration.programs = 3
        configuration.baseSeed = 11
        configuration.mode = .controlled(.randomWalk)
        configuration.generator = ProgramGenerator(maxSteps: 8, minDrivers: 2, maxDrivers: 2)
        let report = await Conformance.check(
            makeBackend: { UninstrumentedLockBackend(.lockAcrossAPoint) }, configuration: configuration)
        #expect(report.failures.isEmpty, "\(report)")
        #expect(!report.blockedOutsidePrimitives.isEmpty, "\(report)")
        #expect(report.description.contains("blocked outside ScheduleKit's primitives: "), "\(report)")
        #expect(report.description.contains("the harness cannot control that part of the backend"), "\(report)")
    }
}
