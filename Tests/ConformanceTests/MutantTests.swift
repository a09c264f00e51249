import Conformance
import Testing

/// The suite must catch each bug of the mutant backends within the default budget, naming the
/// rule the bug breaks, and must pass the correct reference backend.
@Suite(.serialized)
struct MutantTests {
    /// The rules each mutation breaks (any one must be reported).
    static let expectedRules: [Mutation: Set<Rule>] = [
        .twoTrySetWinners: [.c1_2],
        .continuationRunTwice: [.c2_1],
        .lifoContinuations: [.c2_4],
        .runInsideRegister: [.c2_3],
        .tokenIgnoredBeforeStart: [.c4_3],
        .wrongExecutor: [.c2_5],
        .closuresKeptAlive: [.c8_1],
        .cancellationAsFailure: [.c3_2],
        // A lost continuation hangs a chain (C2.1) or a waiter (C6.3), whichever comes first.
        .lostContinuation: [.c2_1, .c6_3],
        .whenAllCompletionOrder: [.c5_1],
        .whenAllNotFailingFast: [.c5_1],
        .finallyLosesError: [.c3_3],
        .flatMapNotWaiting: [.c2_6],
    ]

    static func configuration(_ name: String, atLeastTheDefaultBudget: Bool = false) -> ConformanceConfiguration {
        var configuration = ConformanceConfiguration.fromEnvironment(testFilter: "MutantTests/\(name)")
        configuration.hangLimit = .seconds(5)
        // Mutants get the default budget even when CI lowers CONFORMANCE_PROGRAMS (a run stops
        // at its first failure, so a caught mutant costs a few programs only).
        if atLeastTheDefaultBudget { configuration.programs = max(configuration.programs, 1_000) }
        configuration.output = { line in if line.hasPrefix("conformance") { print(String(line.prefix { $0 != "\n" })) } }
        return configuration
    }

    @Test func referenceBackendPasses() async {
        let report = await Conformance.check(ReferenceBackend(), configuration: Self.configuration("referenceBackendPasses"))
        report.recordIssues()
        #expect(report.programsRun > 0)
    }

    @Test(arguments: Mutation.allCases.filter { $0 != .none })
    func mutantIsCaught(_ mutation: Mutation) async throws {
        let report = await Conformance.check(ReferenceBackend(mutation), configuration: Self.configuration("mutantIsCaught", atLeastTheDefaultBudget: true))
        let expected = try #require(Self.expectedRules[mutation])
        let rules = Set(report.failures.map(\.rule))
        #expect(!rules.isDisjoint(with: expected), "\(mutation) should break \(expected.sorted()); found \(rules.sorted()) in \(report.programsRun) programs")
        if mutation == .lostContinuation {
            // A hang: the watchdog names what is stuck, and the run stops testing the backend.
            #expect(report.failures.contains { $0.message.hasPrefix("watchdog") && $0.observed.contains("pending tasks: t") })
            #expect(report.abandoned)
        }
        if let failure = report.failures.first {
            #expect(failure.replay.contains("CONFORMANCE_SEED=\(failure.seed)"))
            #expect(failure.program.hasPrefix("program seed=\(failure.seed) "))
        }
    }
}
