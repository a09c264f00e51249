import Conformance
import Dispatch
import Foundation
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
    static func configuration(livelockFactor: Int = ConformanceConfiguration.defaultLivelockFactor) -> ConformanceConfiguration {
        var configuration = ConformanceConfiguration(hangLimit: .seconds(1), output: { _ in })
        configuration.resourceLinks = 0
        configuration.livelockFactor = livelockFactor
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

    /// `body`'s result on a thread of its own (4 MiB of stack, as the library's async entry points
    /// use), with the moment it returned there.
    static func timedOnOwnThread<R: Sendable>(_ body: @escaping @Sendable () -> R) async -> (R, DispatchTime) {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                let result = body()
                continuation.resume(returning: (result, DispatchTime.now()))
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
    }

    /// `program`'s contended `makeSource`s (the release comes at once), then, on driver 0, a chain
    /// of `links` maps on a serial executor from task 0 that it waits for; with `heldChain`, a held
    /// source and a chain of `links` maps from it too, which runs in phase two.
    static func chainProgram(links: Int, heldChain: Bool) -> Program {
        var steps = program.steps
        steps += Step.mapChain(driver: 0, from: 0, firstTask: 2, links: links)
        steps.append(Step(driver: 0, operation: .wait(task: links + 1), pause: .none))
        if heldChain {
            let held = links + 2
            steps.append(Step(driver: 0, operation: .makeSource(task: held, held: .success), pause: .none))
            steps += Step.mapChain(driver: 0, from: held, firstTask: held + 1, links: links)
        }
        return Program(seed: 8, drivers: 2, serialExecutors: 1, countingExecutors: 0, steps: steps)
    }

    /// C2.1 (watchdog): released to go on natively, a slow but correct backend (every job 4 ms
    /// late) runs a chain of 300 maps in the drivers' phase (1.2 s at the least, past the 0.5 s
    /// left of the hang limit after the blocked-seat bound) and another in phase two (past the
    /// 1 s limit). Each native phase is watched as a stress phase, from the run's progress: no
    /// hang, only the release's note, however long the crowd makes the chains (a livelock factor
    /// that never ends them). With fixed limits, as before, the run was called hung.
    @Test func aSlowBackendReleasedToGoOnNativelyIsNotAHang() async throws {
        let links = 300
        let jobs = SlowJobs(delay: .milliseconds(4))
        let backend = UninstrumentedLockBackend(.lockAcrossAPoint, jobs: jobs)
        let run = await Conformance.runProgram(
            backend, program: Self.chainProgram(links: links, heldChain: true), mode: .controlled(.randomWalk),
            configuration: Self.configuration(livelockFactor: PhaseWatchTests.unbounded))
        #expect(backend.contended.load(ordering: .relaxed) >= 1, "no makeSource found the lock taken")
        #expect(jobs.ran >= 2 * links, "the chains' jobs did not all run: \(jobs.ran)")
        #expect(run.findings.isEmpty && !run.abandoned, "\(run.findings)")
        let note = try #require(run.notReproducible.first, "the released run is not marked not reproducible")
        #expect(note.contains("blocked outside ScheduleKit's primitives"), "\(note)")
    }

    /// C2.1 (watchdog): released to go on natively, a backend that makes progress (a chain's jobs,
    /// 4 ms each) for a while and then none (its jobs after the 250th are dropped, and the driver
    /// waits for the chain's end for good) is still a hang, given up one hang limit after its last
    /// progress (no sooner: not at a fixed time after the release), about then (within 3 limits),
    /// whatever the livelock factor.
    @Test func aHangAfterTheReleaseIsGivenUpAboutOneHangLimitAfterTheLastProgress() async throws {
        let limit = Self.configuration().hangLimit
        let jobs = SlowJobs(delay: .milliseconds(4), dropsAfter: 250)
        let backend = UninstrumentedLockBackend(.lockAcrossAPoint, jobs: jobs)
        // The end is taken on the run's own thread, as it returns: this async test resumes on
        // Swift's cooperative pool, which a crowded test process (two threads on two cores, other
        // suites blocking them) gave back 11 and 29 s late in CI rehearsals, while the run had
        // given up one hang limit after its last progress.
        let (run, ended) = await Self.timedOnOwnThread {
            Conformance.runProgram(
                backend, program: Self.chainProgram(links: 300, heldChain: false), mode: .controlled(.randomWalk),
                configuration: Self.configuration(livelockFactor: PhaseWatchTests.unbounded))
        }
        let lastStart = try #require(jobs.lastStart, "no job ran")
        let quiet = Duration.nanoseconds(Int64(ended.uptimeNanoseconds - lastStart.uptimeNanoseconds))
        let finding = try #require(run.findings.first, "a backend that stopped making progress was not reported")
        #expect(run.abandoned)
        #expect(jobs.ran == 250, "\(jobs.ran) jobs ran")
        #expect(finding.message.contains("reached no schedule point within"), "\(finding.message)")
        #expect(finding.message.contains("released to go on natively, the drivers' steps still did not finish"), "\(finding.message)")
        #expect(finding.message.contains("made no progress for 1.0 seconds"), "\(finding.message)")
        #expect(quiet >= limit, "given up \(quiet) after the last progress")
        #expect(quiet < limit * 3, "given up \(quiet) after the last progress, not about the hang limit")
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
