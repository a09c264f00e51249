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
            #expect(
                !failure.description.contains("expectation failed") && !failure.description.contains("required value was nil"), "\(failure)"
            )
        }
    }
}

extension RuleReportTests {
    /// Mutants whose bugs the suite sees at once, between them failing checks of chapters C1 to
    /// C7 (`waitTimeoutNilEarly` alone fails about 20 rules' checks; C8's failures wait out the
    /// checks' 10 s patience, too slow here): every failure says what the rule expects, the
    /// call, expected and observed. One after the other (about 0.5 s each): run side by side,
    /// their suites' threads would starve the tests that watch for hangs.
    static let quickMutants: [Mutation] = [
        .waitTimeoutNilEarly, .twoTrySetWinners, .lifoContinuations, .handlerRunTwice, .whenAllCompletionOrder, .serialReordersBacklog,
        .timeoutWrongError
    ]

    @Test("every rule-suite failure of the quick mutants says expected, observed and the call")
    func mutantFailuresSayExpectedObservedAndTheCall() async {
        var rules = Set<Rule>()
        for mutation in Self.quickMutants {
            let report = await RuleSuite.run(ReferenceBackend(mutation), checks: RuleSuite.checks.filter { $0.chapter <= 8 })
            #expect(!report.failures.isEmpty, "\(mutation) breaks a rule the suite checks")
            for failure in report.failures {
                #expect(failure.call.map { !$0.isEmpty } == true && failure.expected != nil && failure.observed != nil, "\(failure)")
            }
            rules.formUnion(report.failures.map(\.rule))
        }
        #expect(
            Set(rules.map { String($0.rawValue.prefix(2)) }).isSuperset(of: ["C1", "C2", "C3", "C4", "C5", "C6", "C7"]),
            "chapters with failures: \(rules.sorted())")
    }
}
