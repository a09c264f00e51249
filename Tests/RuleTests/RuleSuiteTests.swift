import Conformance
import Testing
import TaskAPI

/// The contract's rule suite (Conformance's `RuleSuite`) against every backend of the package:
/// one test per chapter, one case per check and backend, so that a failure names its rule
/// ("C2.4 ..." is the check's argument) and its backend. The checks themselves live in
/// Sources/Conformance/RuleSuite, where a backend from outside runs them too.
@Suite("Rule suite")
struct RuleSuiteTests {
    @Test("C1 Outcome", arguments: RuleSuite.checks(chapter: 1), Backends.all)
    func c1(_ check: RuleCheck, _ c: BackendCase) async { await Self.run(check, c) }

    @Test("C2 Continuations", arguments: RuleSuite.checks(chapter: 2), Backends.all)
    func c2(_ check: RuleCheck, _ c: BackendCase) async { await Self.run(check, c) }

    @Test("C3 Errors", arguments: RuleSuite.checks(chapter: 3), Backends.all)
    func c3(_ check: RuleCheck, _ c: BackendCase) async { await Self.run(check, c) }

    @Test("C4 Cancellation", arguments: RuleSuite.checks(chapter: 4), Backends.all)
    func c4(_ check: RuleCheck, _ c: BackendCase) async { await Self.run(check, c) }

    @Test("C5 Combinators", arguments: RuleSuite.checks(chapter: 5), Backends.all)
    func c5(_ check: RuleCheck, _ c: BackendCase) async { await Self.run(check, c) }

    @Test("C6 Waiting", arguments: RuleSuite.checks(chapter: 6), Backends.all)
    func c6(_ check: RuleCheck, _ c: BackendCase) async { await Self.run(check, c) }

    @Test("C7 Executors", arguments: RuleSuite.checks(chapter: 7), Backends.all)
    func c7(_ check: RuleCheck, _ c: BackendCase) async { await Self.run(check, c) }

    @Test("C8 Resources", arguments: RuleSuite.checks(chapter: 8), Backends.all)
    func c8(_ check: RuleCheck, _ c: BackendCase) async { await Self.run(check, c) }

    @Test("C9 Conveniences and lifecycles", arguments: RuleSuite.checks(chapter: 9), Backends.all)
    func c9(_ check: RuleCheck, _ c: BackendCase) async { await Self.run(check, c) }

    /// Every rule of the harness's vocabulary has a check here, or (C2.7) an exit test.
    @Test("Every rule C1-C8 has checks in the rule suite")
    func everyRuleChecked() {
        let covered = Set(RuleSuite.rules).union(["C2.7"])
        let missing = Rule.allCases.map(\.rawValue).filter { !covered.contains($0) }
        #expect(missing.isEmpty, "rules without a check: \(missing)")
        #expect(RuleSuite.checks.allSatisfy { $0.description.hasPrefix($0.rule + " ") })
    }

    /// Runs one check and records its failures at the failing expectation inside the suite. A
    /// synchronous check runs on this test's thread (as the tests it replaces did: Swift Testing
    /// bounds how many run at once), an asynchronous one is awaited.
    static func run(_ check: RuleCheck, _ c: BackendCase) async {
        let failures = check.isAsync ? await RuleSuite.run(check, on: c.backend) : runBlocking(check, c.backend)
        for failure in failures {
            let at = failure.location
            Issue.record(
                Comment(rawValue: failure.description),
                sourceLocation: SourceLocation(fileID: at.fileID, filePath: at.filePath, line: at.line, column: at.column))
        }
    }

    /// The synchronous `RuleSuite.run`, picked by calling it from synchronous code.
    private static func runBlocking(_ check: RuleCheck, _ backend: any TaskBackend) -> [RuleFailure] {
        RuleSuite.run(check, on: backend)
    }
}
