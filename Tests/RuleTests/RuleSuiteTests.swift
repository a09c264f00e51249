import Conformance
import Testing
import TaskAPI

/// The contract's rule suite (Conformance's `RuleSuite`) against every backend of the package:
/// one test case per check and backend, named by the check ("C2.4 continuations are handed over
/// in registration order; ...") and the backend, so that a failure names its rule. The checks
/// themselves live in Sources/Conformance/RuleSuite, where a backend from outside runs them too
/// (`Conformance.checkAll`).
@Suite("Rule suite")
struct RuleSuiteTests {
    @Test("Each rule check of the contract", arguments: RuleSuite.checks, Backends.all)
    func rule(_ check: RuleCheck, _ c: BackendCase) async {
        let failures = check.isAsync ? await RuleSuite.run(check, on: c.backend) : Self.runBlocking(check, c.backend)
        for failure in failures {
            let at = failure.location
            Issue.record(
                Comment(rawValue: failure.description),
                sourceLocation: SourceLocation(fileID: at.fileID, filePath: at.filePath, line: at.line, column: at.column))
        }
    }

    /// Every rule of the harness's vocabulary has a check here, or (C2.7) an exit test.
    @Test("Every rule C1-C8 has checks in the rule suite")
    func everyRuleChecked() {
        let covered = Set(RuleSuite.rules).union(["C2.7"])
        let missing = Rule.allCases.map(\.rawValue).filter { !covered.contains($0) }
        #expect(missing.isEmpty, "rules without a check: \(missing)")
        #expect(RuleSuite.checks.allSatisfy { $0.description.hasPrefix($0.rule + " ") })
    }

    /// A synchronous check runs on this test's thread, as the tests it replaces did (Swift
    /// Testing bounds how many run at once); `RuleSuite.run` from async code would give each its
    /// own thread, all at once. This is the synchronous `RuleSuite.run`, picked by calling it
    /// from synchronous code.
    private static func runBlocking(_ check: RuleCheck, _ backend: any TaskBackend) -> [RuleFailure] {
        RuleSuite.run(check, on: backend)
    }
}
