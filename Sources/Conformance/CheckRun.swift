import Foundation
import TaskAPI

/// One `Conformance.check` under way: the resource checks, then the generated programs (each
/// generated, run and checked by the pipeline, a failing one shrunk), tallied into the report.
struct CheckRun {
    let backend: String
    let makeBackend: @Sendable () -> any TaskBackend
    let configuration: ConformanceConfiguration
    let callSite: CallSite
    private let pipeline: ProgramPipeline
    private let start = Uptime.now

    private var exercised: [Rule: Int] = [:]
    private var checks: [Rule: Int] = [:]
    private var failures: [ConformanceFailure] = []
    private var known: [ConformanceFailure] = []
    private var notReproducible: [String] = []
    private var failingPrograms = 0
    private var programsRun = 0
    private var controlledRun = 0
    private var seatedRun = false
    private var stepsRun = 0
    private var abandoned = false

    init(backend: String, makeBackend: @escaping @Sendable () -> any TaskBackend, configuration: ConformanceConfiguration,
         callSite: CallSite) {
        self.backend = backend
        self.makeBackend = makeBackend
        self.configuration = configuration
        self.callSite = callSite
        pipeline = ProgramPipeline(makeBackend: makeBackend, configuration: configuration)
    }

    /// C2.7's chains and C8.2's dropped chain at `configuration.resourceLinks` links, in-process.
    mutating func checkResources(_ instance: any TaskBackend) {
        // A crash here kills the process: say first what runs, so the last line names it.
        FileHandle.standardError.write(Data(("conformance [\(backend)] resource checks (C2.7, C8.2): "
            + "\(configuration.resourceLinks) links each, on a 512 KiB stack\n").utf8))
        let findings = Conformance.checkResources(instance, links: configuration.resourceLinks,
                                                  limit: max(configuration.hangLimit, .seconds(120)))
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

    /// The programs of `configuration.programIndices`, within the time budget (the programs':
    /// the resource checks before them take what their links take), until a failure limit or a
    /// hang that left threads blocked in the backend.
    mutating func runPrograms() {
        let programsStart = Uptime.now
        for index in configuration.programIndices {
            if Uptime.now - programsStart > configuration.timeBudget { break }
            if failingPrograms >= configuration.maxFailingPrograms { break }
            let seed = configuration.baseSeed &+ UInt64(index)
            let mode = configuration.mode.mode(forProgram: index)
            let program = configuration.program(seed: seed, mode: mode)
            let result = pipeline.run(program, mode: mode)
            tally(result, of: program, seed: seed, mode: mode)
            if result.abandoned { abandoned = true; break }
        }
    }

    /// Counts `result`; a known issue once per rule; an unknown finding fails the program,
    /// shrunk for its first finding's rule (every finding of the program is reported).
    private mutating func tally(_ result: ProgramResult, of program: Program, seed: UInt64, mode: ScheduleMode) {
        programsRun += 1
        if mode.isControlled { controlledRun += 1 }
        if result.seated { seatedRun = true }
        stepsRun += program.steps.count
        if !result.notReproducible.isEmpty {
            notReproducible.append("seed \(seed) (\(mode)): " + result.notReproducible.joined(separator: "; "))
        }
        for rule in result.exercised { exercised[rule, default: 0] += 1 }
        checks.merge(result.checks, uniquingKeysWith: +)
        let knownIssues = configuration.knownIssues
        let isKnown = { (finding: Finding) in knownIssues[finding.rule] != nil }
        for finding in result.findings where isKnown(finding) && !known.contains(where: { $0.rule == finding.rule }) {
            known.append(failure(finding, seed: seed, program: program, result: result))
        }
        let unknown = result.findings.filter { !isKnown($0) }
        guard let first = unknown.first else { return }
        failingPrograms += 1
        let shrunk = configuration.shrinkTimeBudget > .zero ? shrink(program, mode: mode, rule: first.rule) : nil
        failures += unknown.map { finding in
            failure(finding, seed: seed, program: program, result: result, shrunk: finding.rule == first.rule ? shrunk : nil)
        }
    }

    /// Candidates are smaller than the original: hangs and leaks show sooner. One limit per
    /// candidate, longer than any wait inside its run (cancelled awaits get the timing slack), so
    /// that a slow candidate is never taken for a hang.
    private func shrink(_ program: Program, mode: ScheduleMode, rule: Rule) -> Shrinker.Result {
        let pipeline = ProgramPipeline(makeBackend: makeBackend, configuration: configuration,
                                       leakLimit: min(configuration.leakLimit, .milliseconds(300)))
        return Shrinker(pipeline: pipeline, rule: rule, timeBudget: configuration.shrinkTimeBudget,
                        candidateLimit: configuration.candidateLimit(for:))
            .shrink(program, mode: mode)
    }

    private func failure(_ finding: Finding, seed: UInt64, program: Program, result: ProgramResult,
                         shrunk: Shrinker.Result? = nil) -> ConformanceFailure {
        ConformanceFailure(
            backend: backend, rule: finding.rule, seed: seed, message: finding.message,
            expected: finding.expected, observed: finding.observed, program: program,
            replay: Conformance.replayLine(seed: seed, filter: configuration.testFilter, mode: result.mode, backend: backend),
            callSite: callSite,
            events: result.events, showsEvents: configuration.showsEvents, mode: result.mode,
            notReproducible: result.notReproducible,
            shrunkProgram: shrunk?.program, shrunkMode: shrunk?.mode, shrunkFinding: shrunk?.finding,
            shrinkRuns: shrunk?.runs ?? 0, shrinkDuration: shrunk?.duration ?? .zero)
    }

    func report() -> ConformanceReport {
        var report = ConformanceReport(
            backend: backend, baseSeed: configuration.baseSeed, programsRun: programsRun, stepsRun: stepsRun,
            duration: Uptime.now - start, rulesExercised: exercised, failures: failures, knownIssues: known,
            abandoned: abandoned, controlledPrograms: controlledRun, notReproducible: notReproducible,
            shard: configuration.shard,
            errors: configuration.replaying != nil && programsRun == 0
                ? ["CONFORMANCE_REPLAY=\(backend): the replay ran no program (CONFORMANCE_PROGRAMS or the time budget is 0?)"] : [])
        report.checksRun = checks
        report.seated = seatedRun
        return report
    }
}
