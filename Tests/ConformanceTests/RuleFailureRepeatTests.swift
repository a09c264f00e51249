import Conformance
import TaskAPI
import Testing

/// A check that repeats a round (C2.4's trampoline check runs 20) used to print one failure per
/// round: a backend that lost late registrations got the same five lines 20 times in a row. A
/// failure repeated exactly (the same expectation, call, expected and observed) is now recorded
/// once, with how many times it was seen; a failure that differs is still its own.
@Suite("Rule failures repeated in one check")
struct RuleFailureRepeatTests {
    @Test("the same failure in every round of a check is one failure with its count")
    func repeatedFailureCounted() async throws {
        let rounds = 20
        let check = RuleCheck(.c1_1, "a round that fails the same way each time") { c in
            for _ in 0..<rounds {
                c.expectOutcome(
                    of: c.backend.succeeded(1).completion, .success(2), "a task made with 2 has 2",
                    call: "backend.succeeded(1).completion")
            }
        }
        let failures = await RuleSuite.run(check, on: ReferenceBackend())
        let failure = try #require(failures.first)
        #expect(failures.count == 1, "\(failures.map(\.description))")
        #expect(failure.occurrences == rounds)
        #expect(failure.description.contains("\n  seen: \(rounds) times in this check, each the same\n"))
    }

    @Test("failures that differ in what was observed stay apart")
    func differentFailuresKept() async {
        let check = RuleCheck(.c1_1, "rounds that fail differently") { c in
            for value in 1...3 {
                c.expectOutcome(
                    of: c.backend.succeeded(value).completion, .success(0), "a task made with 0 has 0",
                    call: "backend.succeeded(\(value)).completion")
            }
        }
        let failures = await RuleSuite.run(check, on: ReferenceBackend())
        #expect(failures.map(\.observed) == ["success(1)", "success(2)", "success(3)"])
        #expect(failures.allSatisfy { $0.occurrences == 1 && !$0.description.contains("seen:") })
    }
}
