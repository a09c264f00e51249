import Foundation
import Testing

@testable import Conformance

/// Measures, not checks (each prints a table; docs/CONFORMANCE.md "Shrinking and replay,
/// measured"): `SHRINK_MEASURE=1` shrinks the first failing program of 60 steps or more of 15
/// mutants in both modes (`SHRINK_BUDGET` seconds, 10 by default); `REPLAY_MEASURE=1` replays
/// stress failures of 16 mutants once and with the replay line's attempts.
@Suite(.serialized) struct ShrinkAndReplayMeasures {
    static let mutants: [Mutation] = [
        .lifoContinuations, .wrongExecutor, .serialReordersBacklog, .defaultRunsJobTwice, .defaultDropsJob, .serialDropsJobs,
        .whenAllNotFailingFast, .closuresKeptAlive, .combinatorKeepsInputs, .twoTrySetWinners, .runInsideRegister, .finallyLosesError,
        .lostContinuationInRegister, .errorReplaced, .tokenIgnoredBeforeStart
    ]

    @Test(.enabled(if: ProcessInfo.processInfo.environment["SHRINK_MEASURE"] != nil))
    func measure() {
        let budget = Duration.seconds(Double(ProcessInfo.processInfo.environment["SHRINK_BUDGET"] ?? "10") ?? 10)
        var rows: [String] = []
        var totals = (original: 0, shrunk: 0, hit: 0, runs: 0, seconds: 0.0)
        for mutation in Self.mutants {
            for mode in [ScheduleMode.controlled(.randomWalk), .stress] {
                var configuration = ConformanceConfiguration(output: { _ in })
                configuration.hangLimit = .seconds(5)
                let pipeline = ProgramPipeline(makeBackend: { ReferenceBackend(mutation) }, configuration: configuration)
                var found: (Program, Rule)?
                for seed in UInt64(1)...600 {
                    let program = configuration.program(seed: seed, mode: mode)
                    guard program.steps.count >= 60 else { continue }
                    let result = pipeline.run(program, mode: mode)
                    if let first = result.findings.first { found = (program, first.rule); break }
                    if result.abandoned { break }
                }
                guard let (program, rule) = found else { rows.append("| \(mutation) | \(mode) | none found | | | | |"); continue }
                let shrinkPipeline = ProgramPipeline(
                    makeBackend: { ReferenceBackend(mutation) }, configuration: configuration,
                    leakLimit: .milliseconds(300))
                let result = Shrinker(
                    pipeline: shrinkPipeline, rule: rule, timeBudget: budget, candidateLimit: configuration.candidateLimit(for:)
                )
                .shrink(program, mode: mode)
                let seconds = result.duration.seconds
                let hit = seconds >= budget.seconds
                totals.original += program.steps.count
                totals.shrunk += result.program.steps.count
                totals.hit += hit ? 1 : 0
                totals.runs += result.runs
                totals.seconds += seconds
                rows.append(
                    "| \(mutation) | \(mode) | \(rule) seed \(program.seed) | \(program.steps.count) | \(result.program.steps.count) | "
                        + "\(result.runs) | " + String(format: "%.1f", seconds) + (hit ? " (budget)" : "") + " |")
            }
        }
        print(
            "| mutant | mode | failure | original | shrunk | runs | seconds |\n| --- | --- | --- | --- | --- | --- | --- |\n"
                + rows.joined(separator: "\n"))
        print(
            "total: original \(totals.original) steps, shrunk \(totals.shrunk), budget hit \(totals.hit) of \(rows.count), runs \(totals.runs), "
                + String(format: "%.1f s", totals.seconds))
    }
}

extension ShrinkAndReplayMeasures {
    /// Stress failures replayed once, and with the replay line's attempts.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["REPLAY_MEASURE"] != nil))
    func measureStressReplays() {
        let mutants: [Mutation] = [
            .lifoContinuations, .wrongExecutor, .serialReordersBacklog, .defaultRunsJobTwice, .defaultDropsJob, .serialDropsJobs,
            .lostContinuationOnRace, .lostContinuationInRegister, .twoTrySetWinners, .runInsideRegister, .continuationRunTwice,
            .handlerRunTwice, .tokenIgnoredBeforeStart, .serialRunsReentrantly, .whenAllNotFailingFast, .lostContinuation
        ]
        var once = 0, repeated = 0, total = 0
        var runs: [Int] = []
        for mutation in mutants {
            for base in [UInt64(101), 20_001, 300_001] {
                var configuration = ConformanceConfiguration(output: { _ in })
                configuration.hangLimit = .seconds(3)
                var found: (UInt64, Rule)?
                for offset in UInt64(0)..<200 {
                    let run = Conformance.runProgram(
                        ReferenceBackend(mutation), seed: base + offset, mode: .stress, configuration: configuration)
                    if run.abandoned { break }
                    if let first = run.findings.first { found = (base + offset, first.rule); break }
                }
                guard let (seed, rule) = found else { continue }
                total += 1
                let single = Conformance.runProgram(ReferenceBackend(mutation), seed: seed, mode: .stress, configuration: configuration)
                if single.findings.contains(where: { $0.rule == rule }) { once += 1 }
                let tenfold = Conformance.runProgram(
                    ReferenceBackend(mutation), seed: seed, mode: .stress, configuration: configuration,
                    attempts: configuration.replayAttempts)
                if tenfold.findings.contains(where: { $0.rule == rule }) { repeated += 1; runs.append(tenfold.runs) }
            }
        }
        print(
            "stress replays: \(once) of \(total) reproduce at one run, \(repeated) of \(total) within \(ConformanceConfiguration().replayAttempts) runs (runs needed: \(runs.sorted()))"
        )
    }
}
