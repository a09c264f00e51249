import Foundation
import TaskAPI

/// One `Conformance.check` under way: the resource checks, then the generated programs (each
/// generated, run and checked by the pipeline, a failing one shrunk), tallied into the report.
/// A failure does not stop the run: each program that breaks a rule no earlier program broke is
/// reported and shrunk, up to `maxFailingPrograms`; one that breaks only rules already reported
/// is counted (`repeatedFailures`). Nothing starts after the configuration's deadline.
struct CheckSession {
    let backend: String
    let makeBackend: @Sendable () -> any TaskBackend
    let configuration: ConformanceConfiguration
    let callSite: CallSite
    private let pipeline: ProgramPipeline
    private let start = Uptime.now

    private var exercised: [Rule: Int] = [:]
    private var checks: [Rule: Int] = [:]
    private var entryPoints = EntryPointCoverage()
    private var failures: [ConformanceFailure] = []
    private var known: [ConformanceFailure] = []
    private var notReproducible: [String] = []
    /// Seated runs released because a seat blocked outside ScheduleKit's primitives.
    private var blockedOutsidePrimitives: [String] = []
    /// Seated runs released because a seated phase reached its cap.
    private var cappedSeatedPhases: [String] = []
    private var errors: [String] = []
    /// Programs that broke a rule already reported by an earlier program, by rule.
    private var repeated: [Rule: Int] = [:]
    /// Where the programs stopped, when not at their count: the time budget, the time limit, the
    /// failure limit.
    private var stopped: String?
    private var shrinkTime: Duration = .zero
    /// A replay of a schedule that does not replay exactly: how many runs it took.
    private var replayNote: String?
    private var replayReproduced: Bool?
    private var failingPrograms = 0
    private var programsRun = 0
    private var controlledRun = 0
    private var seatedRun = false
    private var stepsRun = 0
    private var abandoned = false
    /// Exhaustive mode: the programs' explorations, summed.
    private var exploration = ExplorationTally()
    /// Controlled programs that saw work from outside the harness (the backend's own threads).
    private var controlledOutside = 0
    /// Set once mixed mode found that controlled mode cannot reach the backend: why, and from
    /// which program on the programs meant for controlled mode ran in stress mode.
    private var budgetNote: String?
    private var movedToStress = 0

    /// When nothing more may start (`ConformanceConfiguration.deadline`, set by `check`).
    private var deadline: Uptime { configuration.deadline ?? .distantFuture }

    init(
        backend: String, makeBackend: @escaping @Sendable () -> any TaskBackend, configuration: ConformanceConfiguration,
        callSite: CallSite
    ) {
        self.backend = backend
        self.makeBackend = makeBackend
        self.configuration = configuration
        self.callSite = callSite
        pipeline = ProgramPipeline(makeBackend: makeBackend, configuration: configuration)
    }

    /// C2.7's chains and C8.2's dropped chain at `configuration.resourceLinks` links, in-process.
    mutating func checkResources(_ instance: any TaskBackend) {
        guard !deadline.hasPassed else {
            errors.append("the time limit ran out before the resource checks (C2.7, C8.2) started (CONFORMANCE_TIME_LIMIT)")
            return
        }
        // A crash here kills the process: say first what runs, so the last line names it.
        FileHandle.standardError.write(
            Data(
                ("conformance [\(backend)] resource checks (C2.7, C8.2): "
                    + "\(configuration.resourceLinks) links each, on a 512 KiB stack\n").utf8))
        let findings = Conformance.checkResources(
            instance, links: configuration.resourceLinks, limit: max(configuration.hangLimit, .seconds(120)),
            freeLimit: ResourceCheck.freeLimit * max(1, configuration.timingSlack / .seconds(2)))
        exercised[.c2_7, default: 0] += 1
        exercised[.c8_2, default: 0] += 1
        let empty = Program(seed: configuration.baseSeed, drivers: 1, serialExecutors: 0, countingExecutors: 0, steps: [])
        for finding in findings {
            let result = ProgramResult(findings: [finding], exercised: [finding.rule], abandoned: false)
            var reported = failure(finding, seed: configuration.baseSeed, program: empty, result: result)
            reported.replay =
                Shell.assignments(configuration.replayLineEnvironment)
                + "CONFORMANCE_PROGRAMS=0 swift test --filter \(Shell.quoted(configuration.testFilter))"
            if configuration.knownIssues[finding.rule] != nil {
                known.append(reported)
            } else {
                failures.append(reported)
                failingPrograms = 1
            }
        }
    }

    /// The programs of `configuration.programIndices`, within the time budget (the programs'
    /// own: the resource checks before them and the shrinking of failures are not counted),
    /// until the failure limit, the time limit, or a hang that left threads blocked in the backend.
    mutating func runPrograms() {
        let programsStart = Uptime.now
        for index in configuration.programIndices {
            if Uptime.now - programsStart - shrinkTime > configuration.timeBudget { stopped = "the time budget"; break }
            if deadline.hasPassed { stopped = "the time limit (CONFORMANCE_TIME_LIMIT)"; break }
            if failingPrograms >= configuration.maxFailingPrograms {
                stopped = "\(failingPrograms) failing programs (maxFailingPrograms)"
                break
            }
            var mode = configuration.mode.mode(forProgram: index)
            if mode.isControlled, budgetNote != nil {
                mode = .stress
                movedToStress += 1
            }
            let program = configuration.replayProgram ?? configuration.program(seed: configuration.baseSeed &+ UInt64(index), mode: mode)
            let seed = program.seed
            let replays = configuration.replaying != nil || configuration.replayProgram != nil
            let expectation = replays ? ReplayExpectation(rules: configuration.replayExpectedRules) : nil
            let (result, attempts) = pipeline.run(
                program, mode: mode, attempts: replays ? configuration.replayAttempts : 1, replaying: expectation)
            if let expectation {
                replayNote = expectation.note(result, attempts: attempts, limit: configuration.replayAttempts)
                replayReproduced = expectation.reproduced(by: result)
            }
            tally(result, of: program, seed: seed, mode: mode)
            if result.abandoned { abandoned = true; break }
            judgeControlledReach(nextIndex: index + 1)
        }
        if let note = budgetNote { budgetNote = note + " (\(movedToStress) programs)" }
    }

    /// How many controlled programs mixed mode runs before it judges whether controlled mode
    /// reaches the backend.
    static let controlledSample = 8

    /// Mixed mode, after `controlledSample` controlled programs: when at least 7 in 8 of them saw
    /// work from outside the harness and none ran on seats, the backend runs its work on threads
    /// of its own (an event loop, a private queue), which controlled mode cannot schedule: its
    /// schedules do not replay and its interleavings are not the harness's. The programs meant
    /// for controlled mode then run in stress mode, whose race rounds and real threads are where
    /// such a backend's races are found, and the report says so. A replay keeps its mode.
    private mutating func judgeControlledReach(nextIndex: Int) {
        guard case .mixed = configuration.mode, budgetNote == nil, configuration.replaying == nil, configuration.replayProgram == nil,
            controlledRun >= Self.controlledSample, !seatedRun, controlledOutside * 8 >= controlledRun * 7
        else { return }
        budgetNote =
            "controlled mode cannot reach this backend: \(controlledOutside) of \(controlledRun) controlled programs saw work from "
            + "outside the harness (the backend runs callbacks on threads of its own), so their schedules were not the harness's; "
            + "from program \(nextIndex) on, the programs meant for controlled mode ran in stress mode (real threads, race rounds) instead"
    }

    /// Counts `result`; a known issue once per rule; an unknown finding fails the program,
    /// shrunk for its first finding's rule (every finding of the program is reported).
    private mutating func tally(_ result: ProgramResult, of program: Program, seed: UInt64, mode: ScheduleMode) {
        programsRun += 1
        if mode.isControlled { controlledRun += 1 }
        if result.seated { seatedRun = true }
        if let explored = result.exploration { exploration.add(explored) }
        stepsRun += program.steps.count
        if !result.notReproducible.isEmpty {
            if mode.isControlled { controlledOutside += 1 }
            notReproducible.append("seed \(seed) (\(mode)): " + result.notReproducible.joined(separator: "; "))
        }
        if let note = result.blockedOutsidePrimitives { blockedOutsidePrimitives.append("seed \(seed) (\(mode)): " + note) }
        if let phase = result.cappedSeatedPhase { cappedSeatedPhases.append("seed \(seed) (\(mode)): " + phase) }
        for rule in result.exercised { exercised[rule, default: 0] += 1 }
        checks.merge(result.checks, uniquingKeysWith: +)
        entryPoints.add(result)
        let knownIssues = configuration.knownIssues
        let isKnown = { (finding: Finding) in knownIssues[finding.rule] != nil }
        for finding in result.findings where isKnown(finding) && !known.contains(where: { $0.rule == finding.rule }) {
            known.append(failure(finding, seed: seed, program: program, result: result))
        }
        let reported = Set(failures.map(\.rule))
        for rule in Set(result.findings.filter { !isKnown($0) }.map(\.rule)) where reported.contains(rule) {
            repeated[rule, default: 0] += 1
        }
        let new = result.findings.filter { !isKnown($0) && !reported.contains($0.rule) }
        guard let first = new.first else { return }
        failingPrograms += 1
        let shrunk = shrink(program, mode: mode, rule: first.rule)
        // One failure per rule: a program that broke a rule at several places reports it once,
        // with the other findings of that rule as its `moreFindings`, not the same program again.
        var rules: [Rule] = []
        for finding in new where !rules.contains(finding.rule) { rules.append(finding.rule) }
        failures += rules.map { rule in
            let found = new.filter { $0.rule == rule }
            var reported = failure(found[0], seed: seed, program: program, result: result, shrunk: rule == first.rule ? shrunk : nil)
            reported.moreFindings = Array(found.dropFirst())
            return reported
        }
    }

    /// Candidates are smaller than the original: hangs and leaks show sooner. One limit per
    /// candidate, longer than any wait inside its run (cancelled awaits get the timing slack), so
    /// that a slow candidate is never taken for a hang.
    private mutating func shrink(_ program: Program, mode: ScheduleMode, rule: Rule) -> Shrinker.Shrunk? {
        let budget = min(configuration.shrinkTimeBudget, deadline.remaining)
        guard budget > .zero else { return nil }
        // An exhaustive candidate explores its schedules: at most the shrink budget each.
        var shrinking = configuration
        shrinking.explorationTimeLimit = min(configuration.explorationTimeLimit, budget)
        let pipeline = ProgramPipeline(
            makeBackend: makeBackend, configuration: shrinking,
            leakLimit: min(configuration.leakLimit, .milliseconds(300)))
        let result = Shrinker(pipeline: pipeline, rule: rule, timeBudget: budget, candidateLimit: configuration.candidateLimit(for:))
            .shrink(program, mode: mode)
        shrinkTime += result.duration
        return result
    }

    private func failure(
        _ finding: Finding, seed: UInt64, program: Program, result: ProgramResult,
        shrunk: Shrinker.Shrunk? = nil
    ) -> ConformanceFailure {
        let environment = configuration.replayLineEnvironment
        let replay =
            configuration.programFile.map {
                Conformance.replayLine(
                    programFile: $0, filter: configuration.testFilter, mode: result.mode, backend: backend, expecting: [finding.rule],
                    environment: environment)
            }
            ?? Conformance.replayLine(
                seed: seed, filter: configuration.testFilter, mode: result.mode, backend: backend, expecting: [finding.rule],
                environment: environment)
        var reported = ConformanceFailure(
            backend: backend, rule: finding.rule, seed: seed, message: finding.message,
            expected: finding.expected, observed: finding.observed, program: program,
            replay: replay,
            callSite: callSite,
            events: result.events, showsEvents: configuration.showsEvents, mode: result.mode,
            notReproducible: result.notReproducible,
            shrunkProgram: shrunk?.program, shrunkMode: shrunk?.mode, shrunkFinding: shrunk?.finding,
            shrinkRuns: shrunk?.runs ?? 0, shrinkDuration: shrunk?.duration ?? .zero)
        reported.alsoFound = finding.alsoFound
        if let shrunk {
            reported.shrunkReplay = shrunkReplayLine(shrunk, rule: finding.rule, seed: seed, originalSize: program.steps.count)
            reported.shrinkStoppedAt = shrunk.stoppedAt
        }
        return reported
    }

    /// Writes the shrunk program (its text form) where its replay line will read it, and returns
    /// the line; the shrunk program is no seed's, so this is its only way back.
    private func shrunkReplayLine(_ shrunk: Shrinker.Shrunk, rule: Rule, seed: UInt64, originalSize: Int) -> String {
        let directory = configuration.programDirectory ?? FileManager.default.temporaryDirectory.path
        let name = "conformance-\(backend.filter { $0.isLetter || $0.isNumber || $0 == "-" })-\(seed)-\(rule)-shrunk.txt"
        let path = (directory as NSString).appendingPathComponent(name)
        let line = Conformance.replayLine(
            programFile: path, filter: configuration.testFilter, mode: shrunk.mode, backend: backend, expecting: [rule],
            environment: configuration.replayLineEnvironment)
        let text =
            "# [\(backend)] \(rule): shrunk from the program of seed \(seed) (\(originalSize) steps); replay: \(line)\n"
            + shrunk.program.description + "\n"
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return line
        } catch {
            return "(\(path) could not be written: save the shrunk program below there) " + line
        }
    }

    func report() -> ConformanceReport {
        var report = ConformanceReport(
            backend: backend, baseSeed: configuration.baseSeed, programsRun: programsRun, stepsRun: stepsRun,
            duration: Uptime.now - start, rulesExercised: exercised, failures: failures, knownIssues: known,
            abandoned: abandoned, controlledPrograms: controlledRun, notReproducible: notReproducible,
            shard: configuration.shard,
            errors: errors
                + (configuration.replaying != nil && programsRun == 0
                    ? ["CONFORMANCE_REPLAY=\(backend): the replay ran no program (CONFORMANCE_PROGRAMS or the time budget is 0?)"] : []))
        report.checksRun = checks
        report.entryPoints = entryPoints
        report.repeatedFailures = repeated
        report.stoppedBy = stopped
        report.replayNote = replayNote
        report.replayReproduced = replayReproduced
        report.budgetNote = budgetNote
        report.seated = seatedRun
        report.blockedOutsidePrimitives = blockedOutsidePrimitives
        report.cappedSeatedPhases = cappedSeatedPhases
        if exploration.programs > 0 { report.exploration = exploration }
        return report
    }
}
