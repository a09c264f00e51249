import Testing

@testable import bench

/// Each round's ratio pairs a backend's repetition with its baseline's repetition of the same
/// round, so a load that moves both leaves the ratio alone, and a ratio whose rounds disagree by
/// more than the limit is reported unstable.
@Suite struct RatioStabilityTests {
    @Test func aLoadThatMovesBothLeavesTheRatioStable() throws {
        // The machine's load triples the third round of both subjects: each round's ratio is 2.
        let results = [
            Fixture.figure("fanout.whenAll@100k", "dispatch", [100, 100, 300, 100, 100], unit: "tasks/s", better: .higher),
            Fixture.figure(
                "fanout.whenAll@100k", "gcd", [50, 50, 150, 50, 50], baseline: "dispatch", unit: "tasks/s", better: .higher)
        ]
        let judged = try #require(RatioStability.judge(results).first)
        #expect(judged.rounds == [2, 2, 2, 2, 2])
        #expect(judged.spread == 1)
        #expect(judged.stable)
        #expect(judged.line.hasPrefix("stable"))
    }

    @Test func roundsThatDisagreeAreUnstable() throws {
        let results = [
            Fixture.figure("hop.default@30k", "dispatch", [10, 10, 10, 10, 10], unit: "us"),
            Fixture.figure("hop.default@30k", "gcd", [12, 15, 11, 20, 12], baseline: "dispatch", unit: "us")
        ]
        let judged = try #require(RatioStability.judge(results).first)
        #expect(judged.rounds == [1.2, 1.5, 1.1, 2, 1.2])
        #expect(abs(judged.spread - 2 / 1.1) < 1e-9)
        #expect(!judged.stable)
        #expect(judged.line.hasPrefix("UNSTABLE"))
    }

    @Test("with 5 rounds the median's interval is the rounds' range: one far round fails the repeat verdict")
    func fiveRoundsIntervalIsTheRange() {
        let verdict = RepeatVerdict([1.0, 1.02, 0.98, 1.01, 1.5])
        #expect(verdict.median == 1.01)
        #expect(verdict.low == 0.98 && verdict.high == 1.5)
        #expect(!verdict.repeatable)
        #expect(RepeatVerdict([1.0, 1.02, 0.98, 1.01, 1.05]).repeatable)
    }

    @Test("with 11 rounds two far rounds cannot move the median: repeatable, though the rounds are unstable")
    func moreRoundsAllowAMinorityInAnotherMode() throws {
        let rounds = [1.0, 1.01, 0.99, 1.02, 0.98, 1.0, 1.03, 0.97, 1.01, 3.0, 0.3]
        let verdict = RepeatVerdict(rounds)
        // The interval runs from the 3rd smallest round to the 9th.
        let sorted = rounds.sorted()
        #expect(verdict.low == sorted[2] && verdict.high == sorted[8])
        #expect(verdict.repeatable)
        let results = [
            Fixture.figure("hop.default@30k", "dispatch", [Double](repeating: 10, count: 11), unit: "us"),
            Fixture.figure("hop.default@30k", "gcd", rounds.map { $0 * 10 }, baseline: "dispatch", unit: "us")
        ]
        let judged = try #require(RatioStability.judge(results).first)
        #expect(!judged.stable)
        #expect(judged.repeatable == true)
        #expect(judged.line.hasSuffix(": repeatable"))
    }

    @Test(
        "the interval's ends by round count: the whole range up to 5 rounds, then narrower",
        arguments: [(3, 1, 3), (5, 1, 5), (7, 2, 6), (9, 2, 8), (11, 3, 9), (21, 7, 15)])
    func intervalEnds(rounds: Int, low: Int, high: Int) {
        // Rounds 1, 2, ..., n in a shuffled order: the interval's ends are the ranks themselves.
        let verdict = RepeatVerdict((1...rounds).map(Double.init).reversed())
        #expect(verdict.low == Double(low) && verdict.high == Double(high))
    }

    @Test("rounds split between two modes are not repeatable, however many")
    func twoModesAreNotRepeatable() {
        let bimodal = (0..<21).map { $0 % 2 == 0 ? 1.0 : 2.0 }
        let verdict = RepeatVerdict(bimodal)
        #expect(verdict.low == 1 && verdict.high == 2)
        #expect(!verdict.repeatable)
        // An even count: the interval's ends come from the two middle rounds' distributions.
        #expect(!RepeatVerdict([1, 1, 1, 2, 2, 2]).repeatable)
    }

    @Test func singleMeasurementsAndUnpairedFiguresAreLeftOut() {
        let results = [
            Fixture.figure("stack.deepest-inline@512KiB", "closure", [1000]),
            Fixture.figure("stack.deepest-inline@512KiB", "gcd", [900], baseline: "closure"),
            Fixture.figure("chain.pending-inline@1M", "gcd", [100, 110], baseline: "no-such-baseline")
        ]
        #expect(RatioStability.judge(results).isEmpty)
    }

    @Test("a subject the budget gave fewer rounds is paired over the rounds both took")
    func fewerRoundsPairTheFirstOnes() throws {
        let results = [
            Fixture.figure("await.run-value@12k", "pthreads", [10, 20, 10]),
            Fixture.figure("await.run-value@12k", "threads", [5, 10, 5, 50, 50], baseline: "pthreads")
        ]
        let judged = try #require(RatioStability.judge(results).first)
        #expect(judged.rounds == [0.5, 0.5, 0.5])
        #expect(judged.stable)
    }
}
