import Conformance
import Foundation
import ScheduleKit
import TaskAPI
import Testing

/// Controlled mode drives the backend's own executors (issue #10, point 3): a bug in a backend's
/// default or serial executor is caught by controlled runs alone, and its replay line (seed and
/// mode, on a fresh backend) reproduces it exactly.
@Suite(.serialized)
struct ControlledExecutorTests {
    /// The mutants whose bug lives in the reference backend's executors.
    static let executorMutants: [Mutation] = [
        .serialReordersBacklog, .defaultRunsJobTwice, .defaultDropsJob, .serialRunsJobsTwice, .serialDropsJobs
    ]

    /// The mutants whose bug is a race inside a task's `register`/`complete`, which controlled
    /// mode finds at the schedule points inside them (issue #10, point 4).
    static let raceMutants: [Mutation] = [.lostContinuationInRegister]

    @Test(arguments: executorMutants + raceMutants)
    func controlledModeKillsAndReplays(mutation: Mutation) async throws {
        let expected = try #require(MutantTests.expectedRules[mutation])
        var configuration = MutantTests.configuration(atLeastTheDefaultBudget: true)
        configuration.mode = .controlled(.randomWalk)
        configuration.shrinkTimeBudget = .seconds(2)
        let report = await Conformance.check(makeBackend: { ReferenceBackend(mutation) }, configuration: configuration)
        if report.skippedForReplay != nil { return }
        let failure = try #require(
            report.failures.first { expected.contains($0.rule) },
            "\(mutation): controlled mode found \(report.failures.map(\.rule)) in \(report.programsRun) programs (base seed \(report.baseSeed))"
        )
        #expect(failure.mode == .controlled(.randomWalk))
        #expect(failure.notReproducible.isEmpty, "\(failure.notReproducible)")
        // The replay line's program, twice, each on a new backend: the same finding, the same log.
        await ExactReplay.expect(failure, on: { ReferenceBackend(mutation) })
        let seconds = Double(report.duration.components.seconds) + Double(report.duration.components.attoseconds) / 1e18
        print(
            "mutant \(mutation): killed in controlled mode, \(failure.rule) in \(report.programsRun) programs, "
                + String(format: "%.1f", seconds) + " s, replayed exactly (seed \(failure.seed))"
                + (failure.shrunkSize.map { ", shrunk to \($0) steps" } ?? ""))
    }

    /// `check(makeBackend:)` makes a backend for the name, one per program and one per shrink
    /// candidate; `check(backend)` uses the one it is given.
    @Test func theFactoryMakesABackendPerProgram() async {
        let made = Locked(0)
        var configuration = ConformanceConfiguration(programs: 6, output: { _ in })
        configuration.resourceLinks = 0
        let report = await Conformance.check(
            makeBackend: {
                made.withLock { $0 += 1 }
                return ReferenceBackend()
            }, configuration: configuration)
        #expect(report.passed && report.programsRun == 6)
        #expect(made.withLock { $0 } == 7)
    }

    /// The correct reference backend's controlled runs, now on its own executors' threads, find
    /// nothing and replay exactly (batches of serial jobs and gates included).
    @Test func theCorrectBackendPassesAndReplays() async {
        for seed in UInt64(1)...8 {
            let first = await Conformance.runProgram(ReferenceBackend(), seed: seed, mode: .controlled(.pct(depth: 3)))
            let second = await Conformance.runProgram(ReferenceBackend(), seed: seed, mode: .controlled(.pct(depth: 3)))
            #expect(first.findings.isEmpty, "seed \(seed): \(first.findings)")
            #expect(first.notReproducible.isEmpty, "seed \(seed): \(first.notReproducible)")
            #expect(first.eventLines == second.eventLines, "seed \(seed)")
        }
    }
}
