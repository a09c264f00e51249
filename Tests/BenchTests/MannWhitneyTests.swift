import Testing

@testable import bench

@Suite struct MannWhitneyTests {
    @Test func distributionCountsEveryOrdering() {
        // C(8, 4) = 70 orderings of 4 against 4; C(10, 5) = 252.
        #expect(MannWhitney.distribution(4, 4).reduce(0, +) == 70)
        #expect(MannWhitney.distribution(5, 5).reduce(0, +) == 252)
        #expect(MannWhitney.distribution(3, 2) == [1, 1, 2, 2, 2, 1, 1])
    }

    @Test func completeSeparationGivesTheSmallestP() {
        let test = MannWhitney([1, 2, 3, 4], [5, 6, 7, 8])
        #expect(test.u == 0)
        #expect(abs(test.p - 2.0 / 70) < 1e-12)
        #expect(abs(MannWhitney.smallestP(5, 5) - 2.0 / 252) < 1e-12)
        // 2 against 2 can never reach 0.05: why compare needs 4 repetitions.
        #expect(MannWhitney.smallestP(2, 2) > 0.3)
        #expect(MannWhitney.smallestP(3, 3) > 0.05)
        #expect(MannWhitney.smallestP(4, 4) < 0.05)
    }

    @Test func overlappingSamplesAreNotSignificant() {
        let test = MannWhitney([1, 3, 5, 7], [2, 4, 6, 8])
        #expect(test.p > 0.5)
        #expect(MannWhitney([1, 1, 1], [1, 1, 1]).p == 1)
    }

    @Test func isSymmetric() {
        let a = [1.0, 2.5, 3, 9]
        let b = [4.0, 5, 6, 7, 8]
        #expect(abs(MannWhitney(a, b).p - MannWhitney(b, a).p) < 1e-12)
    }
}
