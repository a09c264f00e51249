/// The Mann-Whitney U test (Wilcoxon rank-sum), exact, two-sided.
///
/// Why this test for `bench compare`: repetitions on a shared machine are few (4 or 5) and far
/// from normal (one preempted repetition is an outlier several times the others), so a t-test's
/// assumptions do not hold. Mann-Whitney only asks whether one sample's values tend to be larger
/// than the other's, uses ranks (an outlier weighs as one rank), and has an exact null
/// distribution for small samples, so its p-value is right at 4 against 4.
struct MannWhitney: Equatable {
    /// U: pairs (x from the first sample, y from the second) with x > y, ties counting half.
    var u: Double
    /// Two-sided p-value from the exact distribution of U with no ties (ties only make it
    /// slightly conservative).
    var p: Double

    init(_ first: [Double], _ second: [Double]) {
        var u = 0.0
        for x in first {
            for y in second { u += x > y ? 1 : (x == y ? 0.5 : 0) }
        }
        self.u = u
        let counts = MannWhitney.distribution(first.count, second.count)
        let total = counts.reduce(0, +)
        guard total > 0 else {
            p = 1
            return
        }
        var below = 0.0
        var above = 0.0
        for (k, count) in counts.enumerated() {
            if Double(k) <= u { below += count }
            if Double(k) >= u { above += count }
        }
        p = Swift.min(1, 2 * Swift.min(below, above) / total)
    }

    /// The smallest two-sided p-value `n` against `m` values can reach (complete separation).
    static func smallestP(_ n: Int, _ m: Int) -> Double {
        MannWhitney([Double](repeating: 1, count: n), [Double](repeating: 0, count: m)).p
    }

    /// How many orderings of `n` and `m` distinct values give each U = 0...n·m: the
    /// largest value either belongs to the first sample (and beats all `m` others) or not.
    static func distribution(_ n: Int, _ m: Int) -> [Double] {
        guard n > 0, m > 0 else { return [1] }
        // ways[i][j][k]: orderings of i first-sample and j second-sample values with U = k.
        var ways = [[[Double]]](repeating: [], count: n + 1)
        for i in 0...n {
            ways[i] = [[Double]](repeating: [], count: m + 1)
            for j in 0...m {
                if i == 0 || j == 0 {
                    ways[i][j] = [1]
                    continue
                }
                var row = [Double](repeating: 0, count: i * j + 1)
                for (k, count) in ways[i - 1][j].enumerated() { row[k + j] += count }
                for (k, count) in ways[i][j - 1].enumerated() { row[k] += count }
                ways[i][j] = row
            }
        }
        return ways[n][m]
    }
}
