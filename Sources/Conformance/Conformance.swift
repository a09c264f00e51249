import Foundation
import TaskAPI

/// The conformance suite's entry point: runs generated programs against a backend and returns
/// what they found.
///
///     let report = Conformance.check(MyBackend(), configuration: .fromEnvironment())
///     #expect(report.passed, "\(report)")
public enum Conformance {
    /// Runs `configuration.programs` programs (or until the time budget) against `backend`.
    /// Prints the base seed first, then a summary line; never traps on a misbehaving backend.
    ///
    /// Every program (and every shrink candidate) runs on this one instance: state the backend
    /// keeps (counters, caches, its executors' queues) crosses programs, so a failure that
    /// depends on it may not replay from its seed alone. A backend with such state is better
    /// checked with `check(makeBackend:configuration:)`.
    public static func check(
        _ backend: any TaskBackend,
        configuration: ConformanceConfiguration = .fromEnvironment(),
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> ConformanceReport {
        check(makeBackend: { backend }, configuration: configuration, fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Runs `configuration.programs` programs against a new backend each: `makeBackend` is called
    /// once per program and once per shrink candidate (and once more for the backend's name and
    /// the resource checks), so no state crosses programs and a replay line, which runs one
    /// program on a new backend, sees what the failing program saw.
    ///
    ///     let report = Conformance.check(makeBackend: { MyBackend() }, configuration: .forCurrentTest())
    public static func check(
        makeBackend: @escaping @Sendable () -> any TaskBackend,
        configuration: ConformanceConfiguration = .fromEnvironment(),
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> ConformanceReport {
        var configuration = configuration
        configuration.deadline = configuration.deadline ?? Uptime.now + configuration.effectiveTimeLimit
        let backend = makeBackend()
        let callSite = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        if let early = earlyReport(backend, configuration: configuration) {
            configuration.output(early.description)
            return early
        }
        configuration.output(startLine(backend.name, configuration: configuration))
        var session = CheckSession(backend: backend.name, makeBackend: makeBackend, configuration: configuration, callSite: callSite)
        if configuration.resourceLinks > 0, configuration.replaying == nil, configuration.replayProgram == nil {
            session.checkResources(backend)
        }
        session.runPrograms()
        var report = session.report()
        report.targetContractVersion = backend.targetContractVersion
        configuration.output(report.description)
        return report
    }

    /// The first line a check prints: the base seed and the line that reruns it, then the budget.
    private static func startLine(_ backend: String, configuration: ConformanceConfiguration) -> String {
        let indices = configuration.programIndices
        let shardText = configuration.shard.map { "shard \($0) (programs \(indices.lowerBound)..<\(indices.upperBound)), " } ?? ""
        let rerun =
            (configuration.shard.map { "CONFORMANCE_SHARD=\($0) CONFORMANCE_PROGRAMS=\(configuration.programs) " } ?? "")
            + "CONFORMANCE_SEED=\(configuration.baseSeed) swift test --filter \(Shell.quoted(configuration.testFilter))"
        let environment = Shell.assignments(configuration.replayLineEnvironment)
        return "conformance [\(backend)] base seed \(configuration.baseSeed) (rerun: \(environment)\(rerun)); \(shardText)"
            + "up to \(indices.count) programs, \(configuration.timeBudget), mode \(configuration.mode), timing slack \(configuration.timingSlack)"
    }

    /// The same, from async code: the run happens on a thread of its own, so that it never
    /// blocks a thread of Swift's cooperative pool, which the programs' `await`s need (C6.5).
    /// Use this one from async tests (Swift Testing runs tests on that pool).
    public static func check(
        _ backend: any TaskBackend,
        configuration: ConformanceConfiguration = .fromEnvironment(),
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) async -> ConformanceReport {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                let report: ConformanceReport = check(
                    backend, configuration: configuration, fileID: fileID, filePath: filePath, line: line, column: column)
                continuation.resume(returning: report)
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
    }

    /// `check(makeBackend:configuration:)` from async code, on a thread of its own (see above).
    public static func check(
        makeBackend: @escaping @Sendable () -> any TaskBackend,
        configuration: ConformanceConfiguration = .fromEnvironment(),
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) async -> ConformanceReport {
        await onOwnThread {
            check(makeBackend: makeBackend, configuration: configuration, fileID: fileID, filePath: filePath, line: line, column: column)
        }
    }

    /// Runs the single program of `seed` in `mode` (for program index 0 of `.mixed`: controlled,
    /// random walk) and returns its event log and findings: in controlled mode, running a seed
    /// twice must give the same `eventLines`, unless `notReproducible` says why not.
    public static func runProgram(
        _ backend: any TaskBackend, seed: UInt64, mode: ScheduleMode,
        configuration: ConformanceConfiguration = ConformanceConfiguration(), attempts: Int = 1
    ) -> ProgramRun {
        let mode = mode.mode(forProgram: 0)
        return runProgram(
            backend, program: configuration.program(seed: seed, mode: mode), mode: mode, configuration: configuration,
            attempts: attempts)
    }

    /// Runs `program` (generated, or written or shrunk by hand) in `mode`; with `attempts` above
    /// 1, again while a run finds nothing and its schedule does not replay exactly (as a replay
    /// line does, `ConformanceConfiguration.replayAttempts`).
    public static func runProgram(
        _ backend: any TaskBackend, program: Program, mode: ScheduleMode,
        configuration: ConformanceConfiguration = ConformanceConfiguration(), attempts: Int = 1
    ) -> ProgramRun {
        let (result, runs) = ProgramPipeline(makeBackend: { backend }, configuration: configuration).run(
            program, mode: mode, attempts: attempts)
        return ProgramRun(
            program: program, mode: result.mode, eventLines: result.eventLines, findings: result.findings,
            notReproducible: result.notReproducible, abandoned: result.abandoned, runs: runs)
    }

    /// `program` made runnable after edits by hand or by the shrinker: steps whose ids are gone
    /// are removed, sources without a setter become held, waits that could block forever
    /// become `wait(timeout:)`, and ids are renumbered.
    public static func repaired(_ program: Program) -> Program {
        ProgramRepair.repaired(program)
    }

    /// `runProgram(_:seed:mode:configuration:)` from async code, on a thread of its own (see the
    /// async `check`): use it from async tests.
    public static func runProgram(
        _ backend: any TaskBackend, seed: UInt64, mode: ScheduleMode,
        configuration: ConformanceConfiguration = ConformanceConfiguration(), attempts: Int = 1
    ) async -> ProgramRun {
        await onOwnThread { runProgram(backend, seed: seed, mode: mode, configuration: configuration, attempts: attempts) }
    }

    /// `runProgram(_:program:mode:configuration:attempts:)` from async code, on a thread of its own.
    public static func runProgram(
        _ backend: any TaskBackend, program: Program, mode: ScheduleMode,
        configuration: ConformanceConfiguration = ConformanceConfiguration(), attempts: Int = 1
    ) async -> ProgramRun {
        await onOwnThread { runProgram(backend, program: program, mode: mode, configuration: configuration, attempts: attempts) }
    }

    /// Runs `body` on a thread of its own (4 MiB of stack) and returns what it returns: blocking
    /// work from async code that never holds a thread of Swift's cooperative pool.
    static func onOwnThread<R: Sendable>(_ body: @escaping @Sendable () -> R) async -> R {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.stackSize = 4 << 20
            thread.start()
        }
    }

    /// The shell line that runs exactly the program of `seed` again, on any machine (it names no
    /// shard). With `backend`, it sets `CONFORMANCE_REPLAY`: only that backend's check runs, and
    /// a run that reaches no program of it fails. With `expecting`, it sets `CONFORMANCE_EXPECT`:
    /// the replay reproduces only when it breaks one of those rules (the original failure's), and
    /// says plainly when it did not. `environment` comes first on the line: what the test needs to
    /// run from any package (`ConformanceConfiguration.replayLineEnvironment`).
    public static func replayLine(
        seed: UInt64, filter: String, mode: ScheduleMode? = nil, backend: String? = nil, expecting: [Rule] = [],
        environment: [String: String] = [:]
    ) -> String {
        Shell.assignments(environment) + (mode.map { "CONFORMANCE_MODE=\($0) " } ?? "")
            + "CONFORMANCE_SEED=\(seed) CONFORMANCE_PROGRAMS=1 " + replayTail(filter: filter, backend: backend, expecting: expecting)
    }

    /// The shell line that runs exactly `programFile`'s program (a shrunk counterexample, a
    /// program written by hand) again, in `mode` (its schedule seed is the program's `seed=`);
    /// `backend`, `expecting` and `environment` as for a seed's line.
    public static func replayLine(
        programFile: String, filter: String, mode: ScheduleMode, backend: String? = nil, expecting: [Rule] = [],
        environment: [String: String] = [:]
    ) -> String {
        Shell.assignments(environment) + "CONFORMANCE_MODE=\(mode) CONFORMANCE_PROGRAM_FILE=\(Shell.quoted(programFile)) "
            + "CONFORMANCE_PROGRAMS=1 " + replayTail(filter: filter, backend: backend, expecting: expecting)
    }

    private static func replayTail(filter: String, backend: String?, expecting: [Rule]) -> String {
        (expecting.isEmpty ? "" : "CONFORMANCE_EXPECT=\(expecting.map(\.rawValue).joined(separator: ",")) ")
            + (backend.map { "CONFORMANCE_REPLAY=\(Shell.quoted($0)) " } ?? "") + "swift test --filter \(Shell.quoted(filter))"
    }

    /// The report of a check that runs nothing: another backend is being replayed, or the
    /// environment did not parse or a setting cannot be used (`settingErrors`, reported). `nil`:
    /// run.
    private static func earlyReport(_ backend: any TaskBackend, configuration: ConformanceConfiguration) -> ConformanceReport? {
        if let replaying = configuration.replaying, configuration.replayComesFromThisProcess {
            ReplayGuard.noteCheck(replaying: replaying, backend: backend.name)
        }
        let skipped = configuration.replaying.map { $0 != backend.name } ?? false
        let errors = configuration.settingErrors
        guard skipped || !errors.isEmpty else { return nil }
        return ConformanceReport(
            backend: backend.name, baseSeed: configuration.baseSeed, programsRun: 0, stepsRun: 0, duration: .zero,
            rulesExercised: [:], failures: [], knownIssues: [], abandoned: false, controlledPrograms: 0, notReproducible: [],
            shard: configuration.shard, errors: errors, skippedForReplay: skipped ? configuration.replaying : nil)
    }
}

/// One program's run, from `Conformance.runProgram`.
public struct ProgramRun: Sendable {
    public let program: Program
    public let mode: ScheduleMode
    /// The event log without threads and times, one event a line (`Event.replayDescription`).
    public let eventLines: [String]
    public let findings: [Finding]
    /// Controlled mode: work that came from outside the harness (empty: the run replays exactly).
    public let notReproducible: [String]
    /// A hang left threads blocked inside the backend.
    public let abandoned: Bool
    /// How many times the program ran (`attempts`: the last run is the one described).
    public var runs = 1
}
