import BackendGCD
import Dispatch
import Foundation
import TaskAPI
import Testing

@testable import Conformance

/// The watchdog tells a driver that works from one that is blocked (`DriverCPUClocks`): a step
/// that logs nothing for longer than the hang limit while its thread keeps using CPU time (a
/// chain of hundreds of maps on the inline executor under the thread sanitizer in a crowded test
/// process was reported hung, C2.1 "never returned from the backend") is not a hang; a step whose
/// thread is blocked still is, at about the hang limit; one that spins forever is a livelock, at
/// the cap. In stress mode and in controlled mode on interposed executors (the reference backend
/// is not instrumented; gcd is, and its controlled runs are seated). The hang limit is small
/// (0.4 s, `PhaseWatchTests`'); the busy call works for a bounded amount of CPU time (0.6 s), so
/// it outlasts the limit on the wall clock however crowded the machine, and no test needs its
/// work to end within a window of the clock.
@Suite struct BusyDriverTests {
    static let limit = PhaseWatchTests.limit
    static let work = Duration.milliseconds(600)

    /// One driver: a source made (the backend's busy call) and completed.
    static let program = Program(
        seed: 31, drivers: 1, serialExecutors: 0, countingExecutors: 0,
        steps: [
            Step(driver: 0, operation: .makeSource(task: 0, held: nil), pause: .none),
            Step(driver: 0, operation: .complete(source: 0, outcome: .success, throwing: false), pause: .none)
        ])

    static let modes: [ScheduleMode] = [.stress, .controlled(.randomWalk)]

    /// Runs the program on `backend`, timed on the run's own thread (not counting the wait of
    /// the test's task for a thread of Swift's cooperative pool, which other tests may hold).
    static func timedRun(_ backend: BusyCallBackend, mode: ScheduleMode, livelockFactor: Int) async -> (ProgramRun, Duration) {
        await Conformance.onOwnThread {
            let started = ContinuousClock.now
            let run = Conformance.runProgram(
                backend, program: program, mode: mode, configuration: PhaseWatchTests.configuration(livelockFactor: livelockFactor))
            return (run, ContinuousClock.now - started)
        }
    }

    /// C2.1 (watchdog): a call that works for 0.6 s of CPU time, logging nothing, is no hang
    /// (before, it was "driver d0 in step 0 ... never returned from the backend" at 0.4 s).
    @Test("C2.1 watchdog: a driver whose call keeps its thread working past the hang limit is not hung", arguments: modes)
    func aWorkingDriverIsNotHung(mode: ScheduleMode) async {
        let backend = BusyCallBackend(.works(cpu: Self.work))
        let (run, _) = await Self.timedRun(backend, mode: mode, livelockFactor: 1_000)
        #expect(backend.cpuUsed >= Self.work, "the call did not work past the hang limit: \(backend.cpuUsed)")
        #expect(run.findings.isEmpty && !run.abandoned, "\(run.findings)")
    }

    /// The same on the seated engine (gcd underneath, instrumented): the seat holding the baton
    /// reaches no schedule point inside the call, so the run is released to go on natively after
    /// the blocked-seat bound (0.2 s), where the drivers' phase is watched as under stress.
    @Test("C2.1 watchdog: a seated run's driver whose call keeps working past the hang limit is not hung")
    func aWorkingSeatedDriverIsNotHung() async {
        let backend = BusyCallBackend(.works(cpu: Self.work), base: GCDBackend())
        let (run, _) = await Self.timedRun(backend, mode: .controlled(.randomWalk), livelockFactor: 1_000)
        #expect(backend.cpuUsed >= Self.work, "the call did not work past the hang limit: \(backend.cpuUsed)")
        #expect(run.findings.isEmpty && !run.abandoned, "\(run.findings)")
    }

    /// C2.1 (watchdog): a call blocked for good (a deadlock inside it) is still given up one hang
    /// limit after the run's last progress, not later: its thread uses no CPU time.
    @Test("C2.1 watchdog: a driver blocked inside a call is given up at about the hang limit", arguments: modes)
    func aBlockedDriverIsHungAtTheLimit(mode: ScheduleMode) async throws {
        let backend = BusyCallBackend(.blocks)
        defer { backend.letGo() }
        let (run, elapsed) = await Self.timedRun(backend, mode: mode, livelockFactor: 1_000)
        backend.letGo()
        let finding = try #require(run.findings.first { $0.message.hasPrefix("watchdog:") }, "\(run.findings)")
        #expect(finding.rule == .c2_1, "\(finding)")
        #expect(finding.message.contains("made no progress for 0.4 seconds"), "\(finding.message)")
        #expect(finding.message.contains("; no driver thread used CPU time meanwhile)"), "\(finding.message)")
        #expect(finding.observed.contains("driver d0 in step 0") && finding.observed.contains("never returned"), "\(finding.observed)")
        #expect(run.abandoned)
        #expect(elapsed >= Self.limit && elapsed < Self.limit * 4, "given up at \(elapsed), not about the hang limit")
    }

    /// C2.1 (watchdog): a call that keeps its thread spinning and never returns is a livelock:
    /// given up at the cap (a livelock factor of 2: 0.8 s), not before.
    @Test("C2.1 watchdog: a driver spinning inside a call forever is given up at the livelock cap")
    func aSpinningDriverIsGivenUpAtTheCap() async throws {
        let backend = BusyCallBackend(.spins)
        defer { backend.letGo() }
        let (run, elapsed) = await Self.timedRun(backend, mode: .stress, livelockFactor: 2)
        backend.letGo()
        let finding = try #require(run.findings.first { $0.message.hasPrefix("watchdog:") }, "\(run.findings)")
        #expect(finding.rule == .c2_1, "\(finding)")
        #expect(finding.message.contains("the drivers' steps kept making progress for "), "\(finding.message)")
        #expect(finding.message.hasSuffix(" s without finishing (a livelock?)"), "\(finding.message)")
        #expect(elapsed >= Self.limit * 2, "given up before the cap: \(elapsed)")
    }

    /// The clocks read a working thread's CPU time as progress, and a blocked thread's not; no
    /// more often than their interval.
    @Test("a driver thread's CPU time advancing is progress; a blocked thread's is none")
    func theClocksTellWorkFromBlocking() {
        let log = EventLog(taskCount: 0)
        let clocks = DriverCPUClocks(drivers: 2, hangLimit: .milliseconds(80))
        #expect(clocks.interval == .milliseconds(10))
        let registered = DispatchSemaphore(value: 0)
        let blocked = DispatchSemaphore(value: 0)
        let spun = DispatchSemaphore(value: 0)
        let working = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            clocks.register(0)
            registered.signal()
            blocked.wait()
        }
        registered.wait()
        // The thread's last work before it blocked is read first; then it uses no CPU time.
        usleep(20_000)
        clocks.sample(into: log)
        let before = log.lastActivity
        usleep(20_000)
        clocks.sample(into: log)
        #expect(log.lastActivity == before, "a blocked thread's clock counted as progress")
        Thread.detachNewThread {
            clocks.register(1)
            let start = DispatchTime.now().uptimeNanoseconds
            var sink = 0
            while DispatchTime.now().uptimeNanoseconds - start < 30_000_000 { sink &+= 1 }
            withExtendedLifetime(sink) {}
            spun.signal()
            working.wait()
        }
        spun.wait()
        usleep(20_000)
        clocks.sample(into: log)
        #expect(log.lastActivity > before, "a working thread's clock did not count as progress")
        blocked.signal()
        working.signal()
    }
}
