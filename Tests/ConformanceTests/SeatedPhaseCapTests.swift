import Conformance
import Dispatch
import Foundation
import Synchronization
import TaskAPI
import Testing

/// A seated run whose seats never become quiescent (a backend's jobs that reschedule each other
/// forever, a timer that re-arms itself forever) ends at its phase's cap, the hang limit times
/// the livelock factor of real time (`SeatTable.runUntilQuiescent`): released to go on natively
/// and judged there as a stress phase (`PhaseWatch`). Before the cap, such a run never ended:
/// every schedule point counts as progress for the blocked-seat bound, and the livelock cap
/// applied only after a release. The run is on a thread of its own, waited for with a deadline,
/// so that a run that never ends fails the test instead of hanging the test process.
@Suite(.serialized) struct SeatedPhaseCapTests {
    /// A 0.4 s hang limit and a livelock factor of 2: each seated phase's cap is 0.8 s.
    static let limit = Duration.milliseconds(400)
    static let factor = 2
    static var cap: Duration { limit * factor }
    /// How long a run may take before it is called endless: the cap, then the native rest of a
    /// program of one step (milliseconds, but a crowded test process under the thread sanitizer
    /// may stretch it); far below what a run without a cap takes (forever).
    static let bound = Duration.seconds(30)

    static func configuration() -> ConformanceConfiguration {
        var configuration = ConformanceConfiguration(hangLimit: limit, output: { _ in })
        configuration.resourceLinks = 0
        configuration.livelockFactor = factor
        return configuration
    }

    /// A program of one step.
    static func program(seed: UInt64, _ operation: ProgramOperation) -> Program {
        Program(
            seed: seed, drivers: 1, serialExecutors: 0, countingExecutors: 0,
            steps: [Step(driver: 0, operation: operation, pause: .none)])
    }

    /// `program`'s seated run (controlled, random walk) on `backend`, on a thread of its own, and
    /// how long it took; nil if it did not end within `bound`. `stop` is called either way, once
    /// the run ended or at the bound: it ends the backend's relay or livelock, so that a run that
    /// did not end comes to its end, and none outlives the test.
    static func seatedRun(
        _ backend: any TaskBackend, program: Program, stop: () -> Void
    ) -> (run: ProgramRun, took: Duration)? {
        let outcome = Mutex<(run: ProgramRun, took: Duration)?>(nil)
        let ended = DispatchSemaphore(value: 0)
        let started = ContinuousClock.now
        let thread = Thread {
            let run = Conformance.runProgram(backend, program: program, mode: .controlled(.randomWalk), configuration: configuration())
            let took = ContinuousClock.now - started
            outcome.withLock { $0 = (run, took) }
            ended.signal()
        }
        thread.stackSize = 4 << 20
        thread.start()
        let inTime = ended.wait(timeout: .now() + .nanoseconds(Int(bound.components.seconds) * 1_000_000_000)) == .success
        stop()
        if !inTime { _ = ended.wait(timeout: .now() + .seconds(10)) }
        return inTime ? outcome.withLock { $0 } : nil
    }

    /// Checks a run of `backend` that reached its seated phase's cap and passed natively: no
    /// finding, not abandoned, not before the cap, and a note saying why it is not reproducible.
    static func expectCappedAndPassed(_ ended: (run: ProgramRun, took: Duration)?, _ backend: RelayBackend) throws {
        let (run, took) = try #require(ended, "the seated run did not end within \(bound) (\(backend.relays) relays)")
        #expect(backend.relays >= 2, "the premise: the relay went on (\(backend.relays) relays)")
        #expect(took >= cap, "the run ended after \(took), before its seated phase's cap \(cap)")
        #expect(run.findings.isEmpty && !run.abandoned, "\(run.findings)")
        let note = try #require(run.notReproducible.first, "a run released at its cap is not marked not reproducible")
        #expect(note.contains("reached its cap of \(cap)"), "\(note)")
        #expect(note.contains("went on natively"), "\(note)")
    }

    /// C2.1 (watchdog): a backend whose default executor follows every job with a relay of no-op
    /// jobs, each submitting the next (they log nothing, and natively the program of one
    /// `execute` finishes in milliseconds beside them), ends at the seated phase's cap, passes
    /// natively, and is marked not reproducible with the cap named. Without the cap the seated
    /// run never ended (a probe: 355,117 relayed jobs in 20 s).
    @Test("C2.1 watchdog: a seated run whose jobs reschedule each other forever ends at its cap")
    func aRelayOfJobsEndsAtTheCap() throws {
        let backend = RelayBackend(.jobs)
        let ended = Self.seatedRun(backend, program: Self.program(seed: 41, .submit(executor: .default)), stop: backend.stop)
        try Self.expectCappedAndPassed(ended, backend)
    }

    /// C2.1 (watchdog): a timer that re-arms itself forever makes the run's clock jump to each
    /// deadline, and the seated run never becomes quiescent: it ends at the cap as well, the
    /// program's timer fired (C5.4, judged natively), no finding.
    @Test("C2.1 watchdog: a seated run whose timer re-arms itself forever ends at its cap")
    func aTimerReArmedForeverEndsAtTheCap() throws {
        let backend = RelayBackend(.timers)
        let ended = Self.seatedRun(backend, program: Self.program(seed: 42, .schedule(microseconds: 1_000)), stop: backend.stop)
        try Self.expectCappedAndPassed(ended, backend)
    }

    /// A livelock: a driver's `wait()` never returns (its source's completion is lost) while a
    /// relay of jobs keeps the seats going (the seated phase never calls the run stuck) and a
    /// timer refires every 10 ms on a thread that is no seat (events forever). At its cap the
    /// seated run goes on natively, still a livelock there: given up at the native phase's cap,
    /// as under stress, its finding saying the seated phase reached its cap first. Before the
    /// cap, the seated run never ended.
    @Test("C2.1 watchdog: a livelock on seats is given up at the native cap after the seated one")
    func aLivelockIsGivenUpNativelyAfterTheSeatedCap() throws {
        let program = Program(
            seed: 45, drivers: 1, serialExecutors: 0, countingExecutors: 0,
            steps: [
                Step(driver: 0, operation: .schedule(microseconds: 1_000), pause: .none),
                Step(driver: 0, operation: .submit(executor: .default), pause: .none),
                Step(driver: 0, operation: .makeSource(task: 0, held: nil), pause: .none),
                Step(driver: 0, operation: .complete(source: 0, outcome: .success, throwing: false), pause: .none),
                Step(driver: 0, operation: .wait(task: 0), pause: .none)
            ])
        let backend = LivelockBackend()
        let (run, took) = try #require(
            Self.seatedRun(backend, program: program, stop: backend.stop), "the seated run did not end within \(Self.bound)")
        let finding = try #require(run.findings.first { $0.message.hasPrefix("watchdog:") }, "\(run.findings)")
        #expect(finding.rule == .c2_1, "\(finding)")
        #expect(run.abandoned)
        #expect(
            finding.message.contains(
                "the drivers' steps, after the seated phase one reached its cap of \(Self.cap) and the run went on natively"),
            "\(finding.message)")
        #expect(finding.message.hasSuffix(" s without finishing (a livelock?)"), "\(finding.message)")
        #expect(took >= Self.cap * 2, "given up after \(took), before the seated and the native caps")
    }

    /// The report a user reads counts the controlled programs whose seated phase reached its cap
    /// on a line of its own, names the seed, the phase and the cap, and counts no failure for them.
    @Test("the report counts the programs whose seated phase reached its cap")
    func theReportCountsCappedPrograms() async {
        var configuration = Self.configuration()
        configuration.programs = 2
        configuration.baseSeed = 44
        configuration.mode = .controlled(.randomWalk)
        configuration.generator = ProgramGenerator(maxSteps: 6, minDrivers: 1, maxDrivers: 2)
        let backends = Mutex<[RelayBackend]>([])
        let report = await Conformance.check(
            makeBackend: {
                let backend = RelayBackend(.jobs)
                backends.withLock { $0.append(backend) }
                return backend
            }, configuration: configuration)
        for backend in backends.withLock({ $0 }) { backend.stop() }
        #expect(report.failures.isEmpty && !report.abandoned, "\(report)")
        #expect(!report.cappedSeatedPhases.isEmpty, "\(report)")
        #expect(
            report.cappedSeatedPhases.allSatisfy { $0.hasPrefix("seed ") && $0.contains("at \(Self.cap)") }, "\(report.cappedSeatedPhases)")
        #expect(report.description.contains("seated phases capped: \(report.cappedSeatedPhases.count) of "), "\(report)")
    }

    /// The same backends under stress: nothing for the cap to do, the program passes.
    @Test("the relay backends pass under stress")
    func theRelayBackendsPassUnderStress() {
        for (relay, operation) in [
            (RelayBackend.Relay.jobs, ProgramOperation.submit(executor: .default)), (.timers, .schedule(microseconds: 1_000))
        ] {
            let backend = RelayBackend(relay)
            defer { backend.stop() }
            let run = Conformance.runProgram(
                backend, program: Self.program(seed: 43, operation), mode: .stress, configuration: Self.configuration())
            #expect(run.findings.isEmpty && !run.abandoned, "\(relay): \(run.findings)")
        }
    }
}
