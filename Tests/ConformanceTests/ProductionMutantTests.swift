@_spi(Mutants) import BackendGCD
import BackendThreads
import Conformance
import Foundation
@_spi(Mutants) import TaskAPI
import Testing

/// Bugs planted in the package's own production code (TaskAPI's `Mutant`, switched on in debug
/// builds only, in the one backend a test makes): races inside executors, pools and waiters, which
/// only the seated engine sees (every synchronization a schedule point, blocking included). Each
/// must be killed from a seed in controlled mode with the default budget, under one of its rules,
/// and its replay line (seed and mode, on a new backend) must reproduce it exactly: the same
/// finding and the same event log, twice.
@Suite(.serialized)
struct ProductionMutantTests {
    /// Each mutant: the rules it breaks (any one must be reported), and the backend it is planted
    /// in, configured so that the race does not depend on the machine (how many processors, hence
    /// drainers or workers, it has): one drainer, one worker, so that one thread in the window is
    /// every thread (with two, a push must land while both are in theirs, a schedule in several
    /// hundred programs). Adding a mutant: a case of `Mutant`, its branch in the production code,
    /// and a row here.
    static let productionMutants: [Mutant: (rules: Set<Rule>, backend: @Sendable () -> any TaskBackend)] = [
        // A waiter that checks and sleeps in two critical sections sleeps for good when the
        // completion lands between them: the stuck report names it (C6.3).
        .waiterChecksThenSleeps: ([.c6_1, .c6_3], { ThreadsBackend() }),
        // A lost job: its task never completes although everything it depends on did (C2.1), or,
        // when its task completed otherwise (a token cancelled it), the job's closure and the
        // captures it holds are never released (C8.1, C8.2).
        .drainerEndsInTwoSections: ([.c2_1, .c7_3, .c8_1, .c8_2], { GCDBackend(drainers: 1) }),
        // One worker: a push between its empty look at the queue and its parking is lost (C2.1),
        // or kept unrun (C8.1, C8.2), as above.
        .poolParksWithoutRecheck: ([.c2_1, .c7_3, .c8_1, .c8_2], { Self.singleWorkerPool() }),
    ]

    /// A threads backend whose pool has one worker.
    static func singleWorkerPool() -> any TaskBackend {
        do {
            return try ThreadsBackend(workers: 1)
        } catch {
            preconditionFailure("ThreadsBackend(workers: 1) is a valid configuration: \(error)")
        }
    }

    @Test(arguments: Mutant.allCases)
    func controlledModeKillsAndReplays(mutant: Mutant) async throws {
        let planted = try #require(Self.productionMutants[mutant], "\(mutant) has no row in productionMutants")
        let make: @Sendable () -> any TaskBackend = { Mutant.$planted.withValue(mutant) { planted.backend() } }
        var configuration = MutantTests.configuration(atLeastTheDefaultBudget: true)
        configuration.mode = .controlled(.randomWalk)
        let report = await Conformance.check(makeBackend: make, configuration: configuration)
        if report.skippedForReplay != nil { return }
        #expect(report.description.contains("controlled on seats"), "\(report.description.prefix(400))")
        let failure = try #require(report.failures.first { planted.rules.contains($0.rule) },
                                   "\(mutant): found \(report.failures.map(\.rule)) in \(report.programsRun) programs (base seed \(report.baseSeed))\n\(report.description)")
        #expect(failure.mode.isControlled)
        #expect(failure.notReproducible.isEmpty, "\(failure.notReproducible)")
        // A stuck run's report names every seat and what it is blocked on (a lost job found as a
        // leak is not a stuck run: the phase ended, the job's closure outlived it).
        if ![Rule.c8_1, .c8_2].contains(failure.rule) {
            #expect(failure.observed.contains("seats: "), "\(failure.observed)")
        }
        // The replay line's program, twice, each on a new backend with the mutant planted.
        await ExactReplay.expect(failure, on: make)
        let seconds = Double(report.duration.components.seconds) + Double(report.duration.components.attoseconds) / 1e18
        print("production mutant \(mutant): killed in controlled mode, \(failure.rule) in \(report.programsRun) programs, "
              + String(format: "%.1f", seconds) + " s, replayed exactly (\(failure.mode), seed \(failure.seed))"
              + (failure.shrunkSize.map { ", shrunk to \($0) steps" } ?? ""))
    }
}
