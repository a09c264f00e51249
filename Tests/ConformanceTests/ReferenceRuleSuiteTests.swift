import Conformance
import Testing

/// The reference backend is the guide's template (docs/WRITING_A_BACKEND.md): it keeps every
/// rule of chapters C1-C8 that the portable rule suite checks. (Its C9 conveniences are partial,
/// as the guide says; the plug-in backend in PluginTests passes the whole suite.)
@Suite struct ReferenceRuleSuiteTests {
    @Test("the reference backend passes the rule suite's C1-C8 checks")
    func referencePassesChaptersOneToEight() async {
        let checks = RuleSuite.checks.filter { $0.chapter <= 8 }
        let report = await RuleSuite.run(ReferenceBackend(), checks: checks)
        for failure in report.failures {
            Issue.record("\(failure)")
        }
        #expect(report.checks.count == checks.count)
        #expect(!checks.isEmpty)
    }
}

/// Issue 22, point 7: a backend that lacks the newer rules (the reference backend's C9 is
/// partial) reads, for each failure, what the rule expects, the call of the backend involved,
/// what was expected and what happened, never "expectation failed" or "required value was nil".
@Suite struct RuleReportTests {
    @Test("rule-suite failures say what was expected, what was observed and which call: the reference backend's C9")
    func failuresSayExpectedObservedAndTheCall() async {
        let report = await RuleSuite.run(ReferenceBackend(), checks: RuleSuite.checks(chapter: 9))
        #expect(!report.failures.isEmpty, "the reference backend lacks C9 conveniences the suite checks")
        for failure in report.failures {
            #expect(failure.call.map { !$0.isEmpty } == true && failure.expected != nil && failure.observed != nil, "\(failure)")
            #expect(!failure.description.contains("expectation failed") && !failure.description.contains("required value was nil"), "\(failure)")
        }
    }
}

extension RuleReportTests {
    /// Mutants whose bugs the suite sees at once (about 2 s each, run in parallel; those that make
    /// checks wait out their patience take 10 to 70 s and stay out): every failure of every
    /// chapter says what the rule expects, the call, expected and observed.
    static let quickMutants: [Mutation] = [
        .twoTrySetWinners, .lifoContinuations, .runInsideRegister, .cancellationAsFailure, .whenAllCompletionOrder, .finallyLosesError,
        .flatMapNotWaiting, .errorReplaced, .handlerLostAfterCancel, .handlerRunTwice, .handlersOutOfOrder, .disposedHandlerRuns,
        .timersEarly, .waitTimeoutNilEarly, .timeoutWrongError, .timeoutCompletesTimedTask, .whenAllWrongAbove5, .raceEmptyWrong,
        .cancelAfterImmediate, .serialReordersBacklog,
    ]

    @Test("every rule-suite failure of the quick mutants says expected, observed and the call", arguments: quickMutants)
    func mutantFailuresSayExpectedObservedAndTheCall(_ mutation: Mutation) async {
        let report = await RuleSuite.run(ReferenceBackend(mutation), checks: RuleSuite.checks.filter { $0.chapter <= 8 })
        #expect(!report.failures.isEmpty, "\(mutation) breaks a rule the suite checks")
        for failure in report.failures {
            #expect(failure.call.map { !$0.isEmpty } == true && failure.expected != nil && failure.observed != nil, "\(failure)")
        }
    }
}
