import Foundation

/// Whether a figure's ratio, the median of its rounds' ratios, would come out the same in a
/// repeat of the run (docs/BENCHMARKS.md, "Ratio stability"): a 95 % bootstrap interval of that
/// median, computed exactly rather than by drawing resamples. A resample of the n rounds (n draws
/// with replacement) has its median at or below the k-th smallest round when at least m of its
/// draws are, m being the median's rank, so P(median <= x(k)) = P(Binomial(n, k/n) >= m); the
/// interval runs from the first round where that reaches 2.5 % to the first where it reaches
/// 97.5 %. The ratio is **repeatable** when the interval lies within `margin` (10 %) of the
/// median on both sides.
///
/// Unlike the round verdict (every round within 1.2x of each other), this one lets a minority of
/// rounds land in another mode as long as they cannot move the median. With 5 rounds the interval
/// is the whole range of the rounds (a resample's median is the smallest round with probability
/// 5.8 %), so the two verdicts nearly agree; with 9 rounds it runs from the 2nd to the 8th, with
/// 11 from the 3rd to the 9th (`bench --rounds N`). It fails a figure whose rounds split between
/// two modes in anything like equal numbers: a repeat's median could land in either.
struct RepeatVerdict: Equatable {
    var median: Double
    var low: Double
    var high: Double
    var repeatable: Bool

    /// How far the interval may reach from the median, as a fraction of it.
    static let margin = 0.10
    /// The interval's tails: 2.5 % each side.
    static let tail = 0.025

    init(_ rounds: [Double]) {
        let sorted = rounds.sorted()
        median = Spread(sorted).median
        let n = sorted.count
        guard n > 0 else {
            (low, high, repeatable) = (.nan, .nan, false)
            return
        }
        // An even count's median is the mean of the two middle rounds: the lower one's
        // distribution bounds the interval below, the upper one's above (a slightly wider interval).
        let lowRank = (n + 1) / 2
        let highRank = n / 2 + 1
        let lowIndex = (1...n).first { Self.medianAtOrBelow(k: $0, n: n, rank: lowRank) >= Self.tail } ?? n
        let highIndex = (1...n).first { Self.medianAtOrBelow(k: $0, n: n, rank: highRank) >= 1 - Self.tail } ?? n
        low = sorted[lowIndex - 1]
        high = sorted[highIndex - 1]
        repeatable = low >= median * (1 - Self.margin) && high <= median * (1 + Self.margin)
    }

    /// P(Binomial(n, k/n) >= rank): the chance that a resample's `rank`-th smallest draw is at or
    /// below the k-th smallest of the n rounds.
    static func medianAtOrBelow(k: Int, n: Int, rank: Int) -> Double {
        let p = Double(k) / Double(n)
        var total = 0.0
        for j in rank...n {
            total += binomial(n, j) * pow(p, Double(j)) * pow(1 - p, Double(n - j))
        }
        return total
    }

    private static func binomial(_ n: Int, _ k: Int) -> Double {
        var result = 1.0
        for i in 0..<k { result = result * Double(n - i) / Double(i + 1) }
        return result
    }
}
