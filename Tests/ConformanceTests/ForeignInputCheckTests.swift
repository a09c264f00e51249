import BackendGCD
import Conformance
import Foundation
import TaskAPI
import Testing

/// The rule suite's checks with inputs of another class (contract 1.4: C2.6, C5.1-C5.3), shown to
/// catch an outside backend's combinator that knows only its own task class: one that leaves a
/// foreign input out (a wrong answer, under C5.1), and one that casts it (a trap, named on
/// standard error by the rule and the check); and a backend with a task class of its own whose
/// task-returning forms (C2.6), `whenAllSettled` (C5.2) or `race` and `any` (C5.3) take a pending
/// task of another class as cancelled, each caught under its rule. Every backend of the package,
/// and the reference, passes them (RuleSuiteTests, ReferenceRuleSuiteTests,
/// BackendConformanceTests).
@Suite struct ForeignInputCheckTests {
    /// The checks of contract 1.4's foreign inputs, by rule.
    static func check(_ rule: Rule) throws -> RuleCheck {
        try #require(RuleSuite.checks.first { $0.rule == rule && $0.name.contains("of another class") })
    }

    @Test("C5.1: a whenAll that drops an input of another class fails the foreign-input check, and only it")
    func droppedForeignInputIsCaught() async throws {
        let dropping = ForeignBlindBackend(.dropsForeignInputs)
        let failures = await RuleSuite.run(try Self.check(.c5_1), on: dropping)
        #expect(!failures.isEmpty && failures.allSatisfy { $0.rule == .c5_1 }, "\(failures)")
        let first = try #require(failures.first)
        #expect(first.message == "whenAll keeps input order, foreign inputs included", "\(first)")
        #expect(first.call?.hasPrefix("backend.whenAll([own, foreign, own, foreign") == true, "\(first)")
        #expect(first.expected == "success([0, 10, 20, 30, 40, 50, 60, 70])" && first.observed == "success([0, 20, 40, 60])", "\(first)")
        // The 1.3 check of C5.1, with the backend's own tasks only, passes it: the bug is 1.4's.
        let ownOnly = try #require(RuleSuite.checks.first { $0.rule == .c5_1 && !$0.name.contains("of another class") })
        #expect(await RuleSuite.run(ownOnly, on: dropping).isEmpty)
    }

    @Test("C5.1: a backend targeting 1.3 that drops foreign inputs is told C5.1 was revised in 1.4")
    func revisedRuleIsNamedForATargetOf1_3() throws {
        #expect(Rule.c5_1.revisedIn == [.v1_4] && Rule.c2_6.revisedIn == [.v1_3, .v1_4] && ContractVersion.current == .v1_4)
        #expect(Rule.c5_2.lastChangedIn == .v1_4 && Rule.c5_3.lastChangedIn == .v1_4 && Rule.c5_4.lastChangedIn == .v1_0)
    }

    @Test("C5.1: a whenAll that force-casts an input of another class crashes, and stderr names the rule and the check")
    func forceCastIsNamedOnStandardError() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let check = try #require(RuleSuite.checks.first { $0.rule == .c5_1 && $0.name.contains("of another class") })
            _ = RuleSuite.run(check, on: ForeignBlindBackend(.forceCastsInputs)) as [RuleFailure]
        }
        let text = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(
            text.contains(
                "foreign-blind-force-casts: C5.1 broken: the process crashed in the rule check \"whenAll given tasks of another class"),
            "\(text)")
        #expect(text.contains("at backend.whenAll([own, foreign, own, foreign"), "\(text)")
        #expect(text.contains("(on the check's own thread)"), "\(text)")
    }

    /// What the foreign-input check of a `ForeignSnapshotBackend` bug's rule must report: a
    /// failure with this message and a call starting so (a step whose pending task of another
    /// class the buggy form reads at once, whatever the timing).
    static func expectedFinding(of bug: ForeignSnapshotBackend.Bug) -> (rule: Rule, message: String, call: String) {
        switch bug {
        case .taskReturningForms:
            return (.c2_6, "flatMap waits for a pending foreign task", "backend.succeeded(1).flatMap(on: inline) { _ in foreign pending }")
        case .whenAllSettled:
            return (
                .c5_2, "whenAllSettled waits for a pending foreign input",
                "backend.whenAllSettled([foreign failed(TestError(code: 1)), foreign late"
            )
        case .raceAndAny:
            return (.c5_3, "race takes a foreign input's outcome when it comes first", "backend.race([own slow, foreign fast])")
        }
    }

    @Test(
        "C2.6, C5.2, C5.3: a form that takes a pending task of another class as cancelled fails its rule's foreign-input check, and only it",
        arguments: ForeignSnapshotBackend.Bug.allCases)
    func pendingForeignTaskTakenAsCancelledIsCaught(_ bug: ForeignSnapshotBackend.Bug) async throws {
        let backend = ForeignSnapshotBackend(bug)
        let expected = Self.expectedFinding(of: bug)
        let failures = await RuleSuite.run(try Self.check(expected.rule), on: backend)
        #expect(!failures.isEmpty && failures.allSatisfy { $0.rule == expected.rule }, "\(failures)")
        let finding = try #require(
            failures.first { $0.message == expected.message && $0.call?.hasPrefix(expected.call) == true }, "\(failures)")
        // What it saw: the pending task of another class taken as cancelled at once.
        #expect(finding.observed?.contains("cancelled") == true, "\(finding)")
        // The other foreign-input checks pass it (its other forms hand GCD a foreign task as it is),
        // and so do the checks of its rule with tasks of its own class only: the bug is 1.4's.
        for rule in [Rule.c2_6, .c5_1, .c5_2, .c5_3] where rule != expected.rule {
            let others = await RuleSuite.run(try Self.check(rule), on: backend)
            #expect(others.isEmpty, "\(rule): \(others)")
        }
        for ownOnly in RuleSuite.checks where ownOnly.rule == expected.rule && !ownOnly.name.contains("of another class") {
            let passed = await RuleSuite.run(ownOnly, on: backend)
            #expect(passed.isEmpty, "\(ownOnly.name): \(passed)")
        }
    }

    @Test("C2.6, C5.1-C5.3: the foreign-input checks pass the GCD backend the buggy ones wrap, and TaskAPI's default combinators")
    func correctBackendsPass() async throws {
        // GCDWrapper forwards no combinator: its are TaskAPI's defaults; GCDBackend's are the kit's.
        for backend: any TaskBackend in [GCDBackend(), GCDWrapper(name: "gcd-wrapped")] {
            for rule in [Rule.c2_6, .c5_1, .c5_2, .c5_3] {
                let failures = await RuleSuite.run(try Self.check(rule), on: backend)
                #expect(failures.isEmpty, "\(failures)")
            }
        }
    }
}
