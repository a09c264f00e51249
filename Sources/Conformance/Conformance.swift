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
        let backend = makeBackend()
        let callSite = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        let clock = ContinuousClock()
        let start = clock.now
        let out = configuration.output
        if let early = earlyReport(backend, configuration: configuration) {
            out(early.description)
            return early
        }
        let indices = configuration.programIndices
        let shardText = configuration.shard.map { "shard \($0) (programs \(indices.lowerBound)..<\(indices.upperBound)), " } ?? ""
        let rerun = (configuration.shard.map { "CONFORMANCE_SHARD=\($0) CONFORMANCE_PROGRAMS=\(configuration.programs) " } ?? "")
            + "CONFORMANCE_SEED=\(configuration.baseSeed) swift test --filter \(Shell.quoted(configuration.testFilter))"
        out("conformance [\(backend.name)] base seed \(configuration.baseSeed) (rerun: \(rerun)); \(shardText)"
            + "up to \(indices.count) programs, \(configuration.timeBudget), mode \(configuration.mode), timing slack \(configuration.timingSlack)")
        var harness = Harness(
            makeBackend: makeBackend, executors: configuration.executors,
            hangLimit: configuration.hangLimit, leakLimit: configuration.leakLimit)
        harness.timingSlack = configuration.timingSlack
        func failure(_ finding: Finding, seed: UInt64, program: Program, result: ProgramResult,
                     shrunk: Shrinker.Result? = nil) -> ConformanceFailure {
            ConformanceFailure(
                backend: backend.name, rule: finding.rule, seed: seed, message: finding.message,
                expected: finding.expected, observed: finding.observed, program: program.description,
                replay: replayLine(seed: seed, filter: configuration.testFilter, mode: result.mode, backend: backend.name),
                callSite: callSite,
                events: result.events, showsEvents: configuration.showsEvents, mode: result.mode,
                notReproducible: result.notReproducible, originalSize: program.steps.count,
                shrunkProgram: shrunk.map { "\($0.program)" }, shrunkSize: shrunk?.program.steps.count,
                shrunkMode: shrunk?.mode, shrunkFinding: shrunk?.finding, shrinkRuns: shrunk?.runs ?? 0, shrinkDuration: shrunk?.duration ?? .zero)
        }
        var exercised: [Rule: Int] = [:]
        var checks: [Rule: Int] = [:]
        var failures: [ConformanceFailure] = []
        var known: [ConformanceFailure] = []
        var notReproducible: [String] = []
        var failingPrograms = 0
        var programsRun = 0
        var controlledRun = 0
        var stepsRun = 0
        var abandoned = false
        if configuration.resourceLinks > 0, configuration.replaying == nil {
            // A crash here kills the process: say first what runs, so the last line names it.
            FileHandle.standardError.write(Data(("conformance [\(backend.name)] resource checks (C2.7, C8.2): "
                + "\(configuration.resourceLinks) links each, on a 512 KiB stack\n").utf8))
            let findings = checkResources(backend, links: configuration.resourceLinks, limit: max(configuration.hangLimit, .seconds(120)))
            exercised[.c2_7, default: 0] += 1
            exercised[.c8_2, default: 0] += 1
            let empty = Program(seed: configuration.baseSeed, drivers: 1, serialExecutors: 0, countingExecutors: 0, steps: [])
            for finding in findings {
                let result = ProgramResult(findings: [finding], exercised: [finding.rule], abandoned: false)
                var reported = failure(finding, seed: configuration.baseSeed, program: empty, result: result)
                reported.replay = "CONFORMANCE_PROGRAMS=0 swift test --filter \(Shell.quoted(configuration.testFilter))"
                if configuration.knownIssues[finding.rule] != nil {
                    known.append(reported)
                } else {
                    failures.append(reported)
                    failingPrograms = 1
                }
            }
        }
        // The budget is the programs': the resource checks before them take what their links take.
        let programsStart = clock.now
        for index in indices {
            if clock.now - programsStart > configuration.timeBudget { break }
            if failingPrograms >= configuration.maxFailingPrograms { break }
            let seed = configuration.baseSeed &+ UInt64(index)
            let mode = configuration.mode.mode(forProgram: index)
            let program = configuration.program(seed: seed, mode: mode)
            let result = harness.run(program, mode: mode)
            programsRun += 1
            if mode.isControlled { controlledRun += 1 }
            stepsRun += program.steps.count
            if !result.notReproducible.isEmpty {
                notReproducible.append("seed \(seed) (\(mode)): " + result.notReproducible.joined(separator: "; "))
            }
            for rule in result.exercised { exercised[rule, default: 0] += 1 }
            checks.merge(result.checks, uniquingKeysWith: +)
            let isKnown = { (finding: Finding) in configuration.knownIssues[finding.rule] != nil }
            for finding in result.findings where isKnown(finding) && !known.contains(where: { $0.rule == finding.rule }) {
                known.append(failure(finding, seed: seed, program: program, result: result))
            }
            let unknown = result.findings.filter { !isKnown($0) }
            if !unknown.isEmpty {
                failingPrograms += 1
                // Shrink for the first finding's rule; every finding of the program is reported.
                var shrunk: Shrinker.Result?
                if configuration.shrinkTimeBudget > .zero {
                    // Candidates are smaller than the original: hangs and leaks show sooner. One
                    // limit per candidate, longer than any wait inside its run (cancelled awaits
                    // get the timing slack), so that a slow candidate is never taken for a hang.
                    var shrinkHarness = Harness(makeBackend: makeBackend, executors: configuration.executors,
                                                hangLimit: configuration.hangLimit,
                                                leakLimit: min(configuration.leakLimit, .milliseconds(300)))
                    shrinkHarness.timingSlack = configuration.timingSlack
                    shrunk = Shrinker(harness: shrinkHarness, rule: unknown[0].rule, timeBudget: configuration.shrinkTimeBudget,
                                      candidateLimit: configuration.candidateLimit(for:))
                        .shrink(program, mode: mode)
                }
                failures += unknown.map { finding in
                    failure(finding, seed: seed, program: program, result: result, shrunk: finding.rule == unknown[0].rule ? shrunk : nil)
                }
            }
            if result.abandoned { abandoned = true; break }
        }
        var report = ConformanceReport(
            backend: backend.name, baseSeed: configuration.baseSeed, programsRun: programsRun, stepsRun: stepsRun,
            duration: clock.now - start, rulesExercised: exercised, failures: failures, knownIssues: known,
            abandoned: abandoned, controlledPrograms: controlledRun, notReproducible: notReproducible,
            shard: configuration.shard,
            errors: configuration.replaying != nil && programsRun == 0
                ? ["CONFORMANCE_REPLAY=\(backend.name): the replay ran no program (CONFORMANCE_PROGRAMS or the time budget is 0?)"] : [])
        report.checksRun = checks
        out(report.description)
        return report
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
        configuration: ConformanceConfiguration = ConformanceConfiguration()
    ) -> ProgramRun {
        let mode = mode.mode(forProgram: 0)
        return runProgram(backend, program: configuration.program(seed: seed, mode: mode), mode: mode, configuration: configuration)
    }

    /// Runs `program` (generated, or written or shrunk by hand) in `mode`.
    public static func runProgram(
        _ backend: any TaskBackend, program: Program, mode: ScheduleMode,
        configuration: ConformanceConfiguration = ConformanceConfiguration()
    ) -> ProgramRun {
        var harness = Harness(makeBackend: { backend }, executors: configuration.executors,
                              hangLimit: configuration.hangLimit, leakLimit: configuration.leakLimit)
        harness.timingSlack = configuration.timingSlack
        let result = harness.run(program, mode: mode)
        return ProgramRun(program: program, mode: result.mode, eventLines: result.eventLines, findings: result.findings,
                          notReproducible: result.notReproducible, abandoned: result.abandoned)
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
        configuration: ConformanceConfiguration = ConformanceConfiguration()
    ) async -> ProgramRun {
        await onOwnThread { runProgram(backend, seed: seed, mode: mode, configuration: configuration) }
    }

    /// `runProgram(_:program:mode:configuration:)` from async code, on a thread of its own.
    public static func runProgram(
        _ backend: any TaskBackend, program: Program, mode: ScheduleMode,
        configuration: ConformanceConfiguration = ConformanceConfiguration()
    ) async -> ProgramRun {
        await onOwnThread { runProgram(backend, program: program, mode: mode, configuration: configuration) }
    }

    private static func onOwnThread<R: Sendable>(_ body: @escaping @Sendable () -> R) async -> R {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.stackSize = 4 << 20
            thread.start()
        }
    }

    /// The shell line that runs exactly the program of `seed` again, on any machine (it names no
    /// shard). With `backend`, it sets `CONFORMANCE_REPLAY`: only that backend's check runs, and
    /// a run that reaches no program of it fails.
    public static func replayLine(seed: UInt64, filter: String, mode: ScheduleMode? = nil, backend: String? = nil) -> String {
        (mode.map { "CONFORMANCE_MODE=\($0) " } ?? "") + "CONFORMANCE_SEED=\(seed) CONFORMANCE_PROGRAMS=1 "
            + (backend.map { "CONFORMANCE_REPLAY=\(Shell.quoted($0)) " } ?? "") + "swift test --filter \(Shell.quoted(filter))"
    }

    /// The report of a check that runs nothing: another backend is being replayed, or the
    /// environment did not parse (an error, reported). `nil`: run.
    private static func earlyReport(_ backend: any TaskBackend, configuration: ConformanceConfiguration) -> ConformanceReport? {
        if let replaying = configuration.replaying {
            ReplayGuard.noteCheck(replaying: replaying, backend: backend.name)
        }
        let skipped = configuration.replaying.map { $0 != backend.name } ?? false
        guard skipped || !configuration.environmentErrors.isEmpty else { return nil }
        return ConformanceReport(
            backend: backend.name, baseSeed: configuration.baseSeed, programsRun: 0, stepsRun: 0, duration: .zero,
            rulesExercised: [:], failures: [], knownIssues: [], abandoned: false, controlledPrograms: 0, notReproducible: [],
            shard: configuration.shard, errors: configuration.environmentErrors, skippedForReplay: skipped ? configuration.replaying : nil)
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
}
