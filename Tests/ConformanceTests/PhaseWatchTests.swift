import BackendGCD
import Dispatch
import Foundation
import Synchronization
import TaskAPI
import Testing

@testable import Conformance

/// The watchdog of a run's phases (`PhaseWatch`): a phase is given up when the run made no
/// progress for the hang limit, not when it has run for the hang limit, and a phase that keeps
/// making progress without finishing is given up at `livelockFactor` hang limits
/// (`ConformanceConfiguration.livelockFactor`). Hang limits here are small (0.4 s), as in
/// `HangDiagnosisTests`. No test needs work to end within a window of the clock: a slow but
/// correct run is given a livelock factor that never ends it (`unbounded`), and only outlasts the
/// hang limit by sleeps it cannot shorten; the cap is tested on its own.
@Suite struct PhaseWatchTests {
    static let limit = Duration.milliseconds(400)
    /// A livelock factor no slow but correct run here comes near (400 s at the 0.4 s limit).
    static let unbounded = 1_000

    static func configuration(livelockFactor: Int = ConformanceConfiguration.defaultLivelockFactor) -> ConformanceConfiguration {
        var configuration = ConformanceConfiguration(hangLimit: limit, output: { _ in })
        configuration.resourceLinks = 0
        configuration.livelockFactor = livelockFactor
        return configuration
    }

    /// GCD underneath, its default and serial executors slowed (`jobs`: 2 ms a job by default);
    /// correct.
    final class SlowBackend: TaskBackend {
        private let base = GCDBackend()
        let jobs: SlowJobs
        let defaultExecutor: any AsyncTaskExecutor

        init(jobs: SlowJobs = SlowJobs()) {
            self.jobs = jobs
            defaultExecutor = SlowExecutor(base.defaultExecutor, jobs: jobs)
        }

        var name: String { "slow-gcd" }
        var inlineExecutor: any AsyncTaskExecutor { base.inlineExecutor }
        func makeSerialExecutor(label: String) -> any AsyncTaskExecutor {
            SlowExecutor(base.makeSerialExecutor(label: label), jobs: jobs)
        }
        func makeCancellationSource() -> any CancellationSource { base.makeCancellationSource() }
        func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable {
            base.schedule(after: delay, job)
        }

        func makeSource<T: Sendable>(of type: T.Type) -> any CompletionSource<T> {
            base.sourceWithoutOrigin(of: type)
        }
    }

    /// A backend (the reference's, with a lost wake-up in `wait()`) whose timers fire again and
    /// again, every 10 ms, until the test stops them: a run that keeps logging events
    /// (`timerFired`) and never finishes.
    final class RefiringTimerBackend: TaskBackend {
        private let base = ReferenceBackend(.lostWakeupInWait)
        private let stopped = Atomic(false)

        var name: String { "refiring-timers" }
        var defaultExecutor: any AsyncTaskExecutor { base.defaultExecutor }
        var inlineExecutor: any AsyncTaskExecutor { base.inlineExecutor }
        func makeSerialExecutor(label: String) -> any AsyncTaskExecutor { base.makeSerialExecutor(label: label) }
        func makeCancellationSource() -> any CancellationSource { base.makeCancellationSource() }
        func makeSource<T: Sendable>(of type: T.Type) -> any CompletionSource<T> { base.sourceWithoutOrigin(of: type) }

        /// The job fires after `delay`, then every 10 ms, on a thread of its own (not Dispatch's
        /// global queue, which the suite's other tests may keep busy) until `stop()`.
        func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable {
            refiringTimer(after: delay, until: { [self] in stopped.load(ordering: .acquiring) }, job)
        }

        /// Ends the timers' refiring.
        func stop() {
            stopped.store(true, ordering: .releasing)
        }
    }

    /// One driver: a source made and completed (task 0), a chain of `links` maps on a serial
    /// executor after it, and a wait for its last task.
    static func chainProgram(seed: UInt64, links: Int) -> Program {
        var steps = [
            Step(driver: 0, operation: .makeSource(task: 0, held: nil), pause: .none),
            Step(driver: 0, operation: .complete(source: 0, outcome: .success, throwing: false), pause: .none)
        ]
        steps += Step.mapChain(driver: 0, from: 0, firstTask: 1, links: links)
        steps.append(Step(driver: 0, operation: .wait(task: links), pause: .none))
        return Program(seed: seed, drivers: 1, serialExecutors: 1, countingExecutors: 0, steps: steps)
    }

    /// C2.1 (watchdog): a race step of 5 rounds of 64 serial jobs, each 2 ms late (0.64 s at the
    /// least, beyond the 0.4 s limit), logs no event until it ends; its rounds count as progress,
    /// so no hang.
    @Test("C2.1 watchdog: a slow but correct backend's long race step is not a hang")
    func aSlowRaceStepIsNotAHang() {
        let program = Program(
            seed: 21, drivers: 1, serialExecutors: 0, countingExecutors: 0,
            steps: [Step(driver: 0, operation: .raceRounds(.serialJobs, rounds: 5), pause: .none)])
        let started = Stopwatch()
        let run = Conformance.runProgram(
            SlowBackend(), program: program, mode: .stress, configuration: Self.configuration(livelockFactor: Self.unbounded))
        #expect(started.elapsed > Self.limit, "the program must outlast the hang limit to test anything")
        #expect(run.findings.isEmpty && !run.abandoned, "\(run.findings)")
    }

    /// C2.1 (watchdog): a chain of 250 maps on a serial executor, each 2 ms late (0.5 s at the
    /// least, beyond the 0.4 s limit, the driver waiting on its end), each map's body ending well
    /// within the limit: no hang, however long the crowd makes the whole chain.
    @Test("C2.1 watchdog: a slow but correct backend's long chain is not a hang")
    func aSlowChainIsNotAHang() {
        let links = 250
        let program = Self.chainProgram(seed: 22, links: links)
        let backend = SlowBackend()
        let started = Stopwatch()
        let run = Conformance.runProgram(
            backend, program: program, mode: .stress, configuration: Self.configuration(livelockFactor: Self.unbounded))
        #expect(started.elapsed > Self.limit, "the program must outlast the hang limit to test anything")
        #expect(backend.jobs.ran >= links, "the chain's jobs did not all run: \(backend.jobs.ran)")
        #expect(run.findings.isEmpty && !run.abandoned, "\(run.findings)")
    }

    /// C2.1 (watchdog), controlled mode on interposed executors: the loop hands a chain of 300
    /// maps' jobs to the backend's serial executor one batch at a time, each job 3 ms late (0.9 s
    /// at the least, beyond the 0.4 s limit): every hand-over that comes back is progress, so no
    /// job is called blocked (before, every hand-over shared the phase's fixed deadline).
    @Test("C2.1 watchdog: a slow but correct backend's long chain in a controlled run is not a hang")
    func aSlowControlledChainIsNotAHang() {
        let links = 300
        let program = Self.chainProgram(seed: 25, links: links)
        let backend = SlowBackend(jobs: SlowJobs(delay: .milliseconds(3)))
        let run = Conformance.runProgram(
            backend, program: program, mode: .controlled(.randomWalk), configuration: Self.configuration(livelockFactor: Self.unbounded))
        #expect(backend.jobs.ran >= links, "the chain's jobs did not all run: \(backend.jobs.ran)")
        #expect(run.findings.isEmpty && !run.abandoned, "\(run.findings)")
    }

    /// C6.3: a wait() that never wakes (a lost wake-up) is still given up one hang limit after the
    /// run's last progress (no sooner), as making no progress, whatever the livelock factor.
    @Test("C6.3 watchdog: a backend that truly hangs is given up at about the hang limit")
    func aTrueHangIsGivenUpAtTheLimit() throws {
        let program = Program(
            seed: 23, drivers: 1, serialExecutors: 0, countingExecutors: 0,
            steps: [
                Step(driver: 0, operation: .makeSource(task: 0, held: nil), pause: .none),
                Step(driver: 0, operation: .complete(source: 0, outcome: .success, throwing: false), pause: .none),
                Step(driver: 0, operation: .wait(task: 0), pause: .none)
            ])
        let started = Stopwatch()
        let run = Conformance.runProgram(
            ReferenceBackend(.lostWakeupInWait), program: program, mode: .stress,
            configuration: Self.configuration(livelockFactor: Self.unbounded))
        let elapsed = started.elapsed
        let finding = try #require(run.findings.first)
        #expect(finding.rule == .c6_3, "\(finding)")
        #expect(finding.message.contains("the drivers' steps made no progress for 0.4 seconds (the phase ran "), "\(finding.message)")
        #expect(elapsed >= Self.limit, "given up before the hang limit: \(elapsed)")
        #expect(elapsed < Self.limit * 3, "given up at \(elapsed), not about the hang limit")
    }

    /// The cap is `livelockFactor` hang limits after the phase began, whatever the factor; one
    /// below 1 counts as 1 (`ConformanceConfiguration.settingErrors` reports it).
    @Test("the livelock cap is the livelock factor's hang limits after the phase's start")
    func theCapIsTheFactorsHangLimits() {
        let log = EventLog(taskCount: 0)
        let started = Uptime.now
        for factor in [1, 2, 4, 1_000] {
            let watch = PhaseWatch(log: log, limit: Self.limit, livelockFactor: factor, started: started)
            #expect(watch.cap == started + Self.limit * factor, "factor \(factor)")
            #expect(watch.deadline == started + Self.limit, "factor \(factor): one limit without progress comes first")
        }
        #expect(PhaseWatch(log: log, limit: Self.limit, livelockFactor: 0, started: started).cap == started + Self.limit)
    }

    /// A phase that makes progress at every wait (the run's log marked just before each wait
    /// ends unfinished, so no wait ever sees a hang limit without progress) is given up at its
    /// cap and not before, as a livelock; with no progress, after one hang limit, as a hang.
    @Test("a phase that keeps making progress is given up at its cap, one that makes none after a hang limit")
    func thePhaseWatchGivesUpAtItsCap() throws {
        let log = EventLog(taskCount: 0)
        let limit = Duration.milliseconds(200)
        let watch = PhaseWatch(log: log, limit: limit, livelockFactor: 3)
        var waits = 0
        let livelock = watch.wait { _ in
            waits += 1
            usleep(1_000)
            log.markProgress()
            return false
        }
        guard case .livelock(let ran)? = livelock else {
            Issue.record("a phase that kept making progress was given up as \(String(describing: livelock))")
            return
        }
        #expect(ran >= limit * 3, "given up after \(ran), before its cap")
        #expect(waits > 3, "the phase waited \(waits) times: its progress did not keep it going")
        let idle = PhaseWatch(log: log, limit: limit, livelockFactor: 3)
        let hang = idle.wait { _ in
            usleep(10_000)
            return false
        }
        guard case .noProgress(let quiet)? = hang else {
            Issue.record("a phase without progress was given up as \(String(describing: hang))")
            return
        }
        #expect(quiet >= limit, "given up after \(quiet), before one hang limit without progress")
    }

    /// C6.3: a run that keeps logging events (a timer refiring every 10 ms) while its driver
    /// never returns from wait() is given up at the cap, `livelockFactor` (here 2) hang limits,
    /// as a livelock, and not before.
    @Test("C6.3 watchdog: a run that keeps making progress without finishing is given up at the cap")
    func aLivelockIsGivenUpAtTheCap() throws {
        let program = Program(
            seed: 24, drivers: 1, serialExecutors: 0, countingExecutors: 0,
            steps: [
                Step(driver: 0, operation: .schedule(microseconds: 1_000), pause: .none),
                Step(driver: 0, operation: .makeSource(task: 0, held: nil), pause: .none),
                Step(driver: 0, operation: .complete(source: 0, outcome: .success, throwing: false), pause: .none),
                Step(driver: 0, operation: .wait(task: 0), pause: .none)
            ])
        let backend = RefiringTimerBackend()
        defer { backend.stop() }
        let started = Stopwatch()
        let run = Conformance.runProgram(backend, program: program, mode: .stress, configuration: Self.configuration(livelockFactor: 2))
        let elapsed = started.elapsed
        backend.stop()
        let finding = try #require(run.findings.first { $0.message.hasPrefix("watchdog:") }, "\(run.findings)")
        #expect(finding.rule == .c6_3, "\(finding)")
        #expect(finding.message.contains("the drivers' steps kept making progress for "), "\(finding.message) \(finding.observed)")
        #expect(finding.message.hasSuffix(" s without finishing (a livelock?)"), "\(finding.message)")
        #expect(elapsed >= Self.limit * 2, "given up before the cap: \(elapsed)")
    }

    /// `CONFORMANCE_LIVELOCK_FACTOR` sets the factor (and a replay line carries it); a value that
    /// is not a count >= 1 is an error, from the environment or set in code, and the check runs
    /// nothing.
    @Test("the livelock factor: CONFORMANCE_LIVELOCK_FACTOR, and bad values are errors")
    func theLivelockFactorIsASetting() {
        #expect(ConformanceConfiguration().livelockFactor == 4)
        let parsed = ConformanceConfiguration.fromEnvironment(environment: ["CONFORMANCE_LIVELOCK_FACTOR": "12"])
        #expect(parsed.livelockFactor == 12 && parsed.settingErrors.isEmpty, "\(parsed.settingErrors)")
        #expect(parsed.replayLineEnvironment["CONFORMANCE_LIVELOCK_FACTOR"] == "12")
        #expect(ConformanceConfiguration().replayLineEnvironment["CONFORMANCE_LIVELOCK_FACTOR"] == nil)
        for value in ["0", "-3", "four"] {
            let bad = ConformanceConfiguration.fromEnvironment(environment: ["CONFORMANCE_LIVELOCK_FACTOR": value])
            #expect(bad.settingErrors.contains { $0.hasPrefix("CONFORMANCE_LIVELOCK_FACTOR=\(value)") }, "\(bad.settingErrors)")
        }
        var configuration = Self.configuration(livelockFactor: 0)
        configuration.programs = 1
        let report = Conformance.check(ReferenceBackend(), configuration: configuration)
        #expect(report.errors == ["livelockFactor = 0 is not a count >= 1"], "\(report.errors)")
        #expect(report.programsRun == 0)
    }
}

/// A moment on the monotonic clock, for how long a run took.
private struct Stopwatch {
    let nanoseconds = DispatchTime.now().uptimeNanoseconds

    var elapsed: Duration { .nanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - nanoseconds)) }
}
