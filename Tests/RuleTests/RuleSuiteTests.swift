import Conformance
import Dispatch
import TaskAPI
import Testing

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

    /// Every rule of the harness's vocabulary has a check here, or an exit test (C2.7's stack
    /// depth; C9.8's main thread, C9MainExecutorTests).
    @Test("Every rule has checks in the rule suite")
    func everyRuleChecked() {
        let covered = Set(RuleSuite.rules).union([.c2_7, .c9_8])
        let missing = Rule.allCases.filter { !covered.contains($0) }
        #expect(missing.isEmpty, "rules without a check: \(missing)")
        #expect(RuleSuite.checks.allSatisfy { $0.description.hasPrefix($0.rule.rawValue + " ") })
    }

    /// A report shows an array of outcomes or optionals element by element, as it shows one
    /// (C5.2's `whenAllSettled` reports its outcomes so), not with each element's type spelled
    /// out; strings stay quoted.
    @Test("C5.2: a report shows an array of outcomes as outcomes, not as their type names")
    func reportsShowArraysOfOutcomes() {
        struct Refused: Error { let code: Int }
        #expect(
            RuleContext.show([Completion<Int>.success(2), .failure(Refused(code: 1)), .cancelled])
                == "[success(2), failure(Refused(code: 1)), cancelled]")
        #expect(RuleContext.show([Optional(1), nil]) == "[1, nil]")
        #expect(RuleContext.show(["a", "b"]) == #"["a", "b"]"#)
        #expect(RuleContext.show([[1, 2], [3]]) == "[[1, 2], [3]]")
    }

    /// A failed expectation is a value naming the check's rule, the expectation's line and the
    /// caller's; a check that hangs fails at its time limit instead of hanging the suite.
    @Test("Rule failures are values with the rule, the expectation's location and the call site")
    func failuresAreValues() async throws {
        let backend = try #require(Backends.all.first).backend
        let failing = RuleCheck(.c1_1, "an expectation that fails") { c in
            c.expectOutcome(
                of: c.backend.succeeded(1).completion, .success(2), "a task made with 2 has 2", call: "backend.succeeded(1).completion")
        }
        let expectationLine = #line - 3
        let failures = await RuleSuite.run(failing, on: backend)
        let callLine = #line - 1
        let failure = try #require(failures.first)
        #expect(failures.count == 1)
        #expect(failure.rule == .c1_1 && failure.message == "a task made with 2 has 2" && failure.backend == backend.name)
        #expect(failure.call == "backend.succeeded(1).completion" && failure.expected == "success(2)" && failure.observed == "success(1)")
        #expect(failure.description.contains("\n  call: backend.succeeded(1).completion\n  expected: success(2)\n  observed: success(1)\n"))
        #expect(failure.location.fileID == #fileID && failure.location.line == expectationLine)
        #expect(failure.callSite.fileID == #fileID && failure.callSite.line == callLine)

        let release = DispatchSemaphore(value: 0)
        let hanging = RuleCheck(.c6_1, "a wait that never returns") { _ in release.wait() }
        let hung = await RuleSuite.run(hanging, on: backend, timeLimit: .milliseconds(200))
        release.signal()
        #expect(hung.map(\.rule) == [.c6_1])
        #expect(hung.first?.message.contains("a wait that never returns") == true, "the check is named")
        #expect(hung.first?.observed?.contains("still running after 0.2 seconds") == true)
    }

    /// A synchronous check blocks this test's thread while it runs, as the tests it replaces did
    /// (Swift Testing bounds how many run at once); the async `RuleSuite.run` would free the
    /// thread and let every check start at once. This is the synchronous `RuleSuite.run`, picked
    /// by calling it from synchronous code.
    private static func runBlocking(_ check: RuleCheck, _ backend: any TaskBackend) -> [RuleFailure] {
        RuleSuite.run(check, on: backend)
    }
}
