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
    public static func check(
        _ backend: any TaskBackend,
        configuration: ConformanceConfiguration = .fromEnvironment(),
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> ConformanceReport {
        let callSite = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        let clock = ContinuousClock()
        let start = clock.now
        let out = configuration.output
        out("conformance [\(backend.name)] base seed \(configuration.baseSeed) "
            + "(replay: CONFORMANCE_SEED=\(configuration.baseSeed) swift test --filter \(configuration.testFilter)); "
            + "up to \(configuration.programs) programs, \(configuration.timeBudget)")
        func failure(_ finding: Finding, seed: UInt64, program: Program, result: ProgramResult) -> ConformanceFailure {
            ConformanceFailure(
                backend: backend.name, rule: finding.rule, seed: seed, message: finding.message,
                expected: finding.expected, observed: finding.observed, program: program.description,
                replay: replayLine(seed: seed, filter: configuration.testFilter), callSite: callSite,
                events: result.events, showsEvents: configuration.showsEvents)
        }
        let harness = Harness(
            backend: backend, executors: configuration.executors,
            hangLimit: configuration.hangLimit, leakLimit: configuration.leakLimit)
        var exercised: [Rule: Int] = [:]
        var failures: [ConformanceFailure] = []
        var known: [ConformanceFailure] = []
        var failingPrograms = 0
        var programsRun = 0
        var stepsRun = 0
        var abandoned = false
        for index in 0..<configuration.programs {
            if clock.now - start > configuration.timeBudget { break }
            let seed = configuration.baseSeed &+ UInt64(index)
            let program = configuration.generator.program(seed: seed)
            let result = harness.run(program)
            programsRun += 1
            stepsRun += program.steps.count
            for rule in result.exercised { exercised[rule, default: 0] += 1 }
            let isKnown = { (finding: Finding) in configuration.knownIssues[finding.rule] != nil }
            for finding in result.findings where isKnown(finding) && !known.contains(where: { $0.rule == finding.rule }) {
                known.append(failure(finding, seed: seed, program: program, result: result))
            }
            let unknown = result.findings.filter { !isKnown($0) }
            if !unknown.isEmpty {
                failingPrograms += 1
                failures += unknown.map { failure($0, seed: seed, program: program, result: result) }
            }
            if result.abandoned { abandoned = true; break }
            if failingPrograms >= configuration.maxFailingPrograms { break }
        }
        let report = ConformanceReport(
            backend: backend.name, baseSeed: configuration.baseSeed, programsRun: programsRun, stepsRun: stepsRun,
            duration: clock.now - start, rulesExercised: exercised, failures: failures, knownIssues: known,
            abandoned: abandoned)
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

    /// The shell line that runs exactly the program of `seed` again.
    public static func replayLine(seed: UInt64, filter: String) -> String {
        "CONFORMANCE_SEED=\(seed) CONFORMANCE_PROGRAMS=1 swift test --filter \(filter)"
    }
}
