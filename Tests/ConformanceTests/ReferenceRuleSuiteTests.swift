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
