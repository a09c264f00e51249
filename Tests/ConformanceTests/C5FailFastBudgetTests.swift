import Testing

@testable import Conformance

/// The C5.5 fail-fast check's rounds: a count, bounded by a time budget past a minimum, so a slow
/// build or machine (the thread sanitizer on 2 loaded cores) sweeps fewer rounds instead of
/// overrunning the suite's limit on one check.
@Suite("C5.5 fail-fast rounds: the count and the budget")
struct C5FailFastBudgetTests {
    typealias Rounds = RuleSuite.C5FailFastRounds

    @Test("C5.5: the minimum rounds run however long they take")
    func theMinimumRunsWhateverTheTime() {
        #expect(Rounds.runsAnother(after: 0, elapsed: Rounds.budget * 10))
        #expect(Rounds.runsAnother(after: Rounds.minimumRounds - 1, elapsed: Rounds.budget * 10))
        #expect(!Rounds.runsAnother(after: Rounds.minimumRounds, elapsed: Rounds.budget))
    }

    @Test("C5.5: within the budget the rounds run up to their count, and no further")
    func theCountBoundsAFastRun() {
        #expect(Rounds.runsAnother(after: Rounds.minimumRounds, elapsed: .zero))
        #expect(Rounds.runsAnother(after: Rounds.rounds - 1, elapsed: .zero))
        #expect(!Rounds.runsAnother(after: Rounds.rounds, elapsed: .zero))
    }

    @Test("C5.5: the minimum is whole sweeps of the skew, and fits the suite's limit at the slowest round seen")
    func theMinimumIsWholeSweeps() {
        #expect(Rounds.minimumRounds % RaceBarrier.skewSteps == 0)
        #expect(Rounds.minimumRounds < Rounds.rounds)
        // 15 ms a round (the thread sanitizer on 2 loaded cores) for the minimum, plus the budget.
        #expect(Rounds.budget + .milliseconds(15 * Rounds.minimumRounds) < RuleSuite.timeLimit)
    }
}
