import Conformance
import TaskAPI
import Testing

/// Hang reports (`HangDiagnosis`) a user can act on (issue #15.5): the likely culprit first, only drivers truly
/// stuck as stuck, and only the program's tasks, by their real status.
@Suite struct HangDiagnosisTests {
    static func configuration() -> ConformanceConfiguration {
        var configuration = ConformanceConfiguration(hangLimit: .seconds(1), output: { _ in })
        configuration.resourceLinks = 0
        return configuration
    }

    /// C6.3: d0's wait() on a task completed before the call never wakes; d1 only waits for a task
    /// d0 would make after it. The report blames d0's wait and says d1 is merely waiting.
    @Test func aStuckWaitIsTheCulpritAndItsDependentsAreOnlyWaiting() async throws {
        let program = Program(
            seed: 1, drivers: 2, serialExecutors: 0, countingExecutors: 0,
            steps: [
                Step(driver: 0, operation: .makeSource(task: 0, held: nil), pause: .none),
                Step(driver: 0, operation: .complete(source: 0, outcome: .success, throwing: false), pause: .none),
                Step(driver: 0, operation: .wait(task: 0), pause: .none),
                Step(driver: 0, operation: .makeSource(task: 1, held: nil), pause: .none),
                Step(driver: 1, operation: .complete(source: 1, outcome: .success, throwing: false), pause: .none)
            ])
        let run = await Conformance.runProgram(
            ReferenceBackend(.lostWakeupInWait), program: program, mode: .stress,
            configuration: Self.configuration())
        let finding = try #require(run.findings.first)
        #expect(finding.rule == .c6_3)
        #expect(
            finding.observed.hasPrefix("likely culprit: driver d0 in step 2 (t0.wait()): t0 completed but wait() never woke"),
            "\(finding.observed)")
        #expect(finding.observed.contains("waiting on other drivers (not stuck themselves): driver d1 in step 4"))
        #expect(finding.observed.contains("stuck: driver d0 in step 2 (t0.wait());"))
        #expect(!finding.observed.contains("stuck: driver d1"))
        #expect(!finding.observed.contains("pending tasks"), "t0 completed; t1 was never made: \(finding.observed)")
    }

    /// A hang limit under a second is kept whole (it was cut to its whole seconds, here 0, so
    /// drivers that took a few milliseconds were called hung): no finding on a correct backend.
    /// Up to three runs, the first clean one ends it: a limit cut to 0 fails every run at once,
    /// while a loaded machine under the thread sanitizer once stalled one run's driver for
    /// 0.9 s (CI's rehearsal).
    @Test func aSubSecondHangLimitIsKeptWhole() async {
        var configuration = Self.configuration()
        configuration.hangLimit = .milliseconds(900)
        let steps = (0..<10).flatMap { t in
            [
                Step(driver: 0, operation: .makeSource(task: t, held: nil), pause: .sleep(microseconds: 200)),
                Step(driver: 0, operation: .complete(source: t, outcome: .success, throwing: false), pause: .sleep(microseconds: 200))
            ]
        }
        let program = Program(seed: 3, drivers: 1, serialExecutors: 0, countingExecutors: 0, steps: steps)
        var runs: [ProgramRun] = []
        for _ in 0..<3 {
            let run = await Conformance.runProgram(ReferenceBackend(), program: program, mode: .stress, configuration: configuration)
            runs.append(run)
            if run.findings.isEmpty && !run.abandoned { break }
        }
        let clean = runs.last.map { $0.findings.isEmpty && !$0.abandoned } ?? false
        #expect(clean, "no clean run of \(runs.count): \(runs.map(\.findings))")
    }

    /// The harness's own observer on t0 is lost (the backend's inline executor drops it) while t0
    /// completes: the report says so instead of calling t0 pending.
    @Test func aLostObserverIsNamedAndItsTaskIsNotPending() async throws {
        let program = Program(
            seed: 2, drivers: 1, serialExecutors: 0, countingExecutors: 0,
            steps: [
                Step(driver: 0, operation: .makeSource(task: 0, held: nil), pause: .none),
                Step(driver: 0, operation: .complete(source: 0, outcome: .success, throwing: false), pause: .none)
            ])
        let run = await Conformance.runProgram(
            DroppingInlineBackend(), program: program, mode: .stress,
            configuration: Self.configuration())
        let finding = try #require(run.findings.first)
        #expect(finding.rule == .c2_1)
        #expect(
            finding.observed.hasPrefix("likely culprit: t0 completed, but the continuation the harness registered on it"),
            "\(finding.observed)")
        #expect(!finding.observed.contains("pending tasks"), "\(finding.observed)")
    }
}

/// The reference backend, except that its inline executor drops every job: continuations on it
/// never run although their tasks complete.
private final class DroppingInlineBackend: TaskBackend {
    let base = ReferenceBackend()
    let name = "dropping-inline"
    var defaultExecutor: any AsyncTaskExecutor { base.defaultExecutor }
    let inlineExecutor: any AsyncTaskExecutor = DroppingExecutor()
    func makeSerialExecutor(label: String) -> any AsyncTaskExecutor { base.makeSerialExecutor(label: label) }
    func makeSource<T: Sendable>(of type: T.Type) -> any CompletionSource<T> { base.makeSource(of: type) }
    func makeCancellationSource() -> any CancellationSource { base.makeCancellationSource() }
    func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable { base.schedule(after: delay, job) }
}

private final class DroppingExecutor: AsyncTaskExecutor {
    func execute(_ job: @escaping @Sendable () -> Void) {}
}
