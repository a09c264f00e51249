/// How steady a backend's ratio to its baseline is over one run's repetitions: the ratio of each
/// round (the backend's repetition i over its baseline's repetition i, which the rounds measure
/// back to back: baseline, gcd, threads, actors, baseline, ...), and their spread. A ratio whose
/// rounds agree within `limit` is **stable**; one that does not is a figure to read with its
/// range, not its median (docs/BENCHMARKS.md, "Ratio stability").
struct RatioStability: Codable, Sendable, Equatable {
    /// The case without its size (`fanout.whenAll`), the backend and its baseline.
    var variant: String
    var subject: String
    var baseline: String
    /// The cost ratio of each round, in round order (above 1: costlier than the baseline).
    var rounds: [Double]
    /// The largest round's ratio over the smallest: 1 when every round agrees.
    var spread: Double
    var stable: Bool
    /// The figure's ratio as the rounds give it: the median of `rounds` (absent in reports from
    /// before it was added).
    var medianRatio: Double?
    /// A 95 % bootstrap interval of that median (`RepeatVerdict`): where the median of a repeat
    /// of the run's rounds would fall.
    var intervalLow: Double?
    var intervalHigh: Double?
    /// Whether the interval lies within `RepeatVerdict.margin` of the median ratio: a repeat of
    /// the run would give the same ratio, to within 10 %, whatever the single rounds did.
    var repeatable: Bool?

    /// Rounds may differ by up to this factor (10 % each side of their middle) and be stable.
    static let limit = 1.2

    /// The stability of every backend figure whose repetitions and its baseline's pair up (the
    /// timed cases, and the default-executor instruction counts, three of each); none for single
    /// measurements (probes, the inline instruction counts).
    static func judge(_ results: [Figure]) -> [RatioStability] {
        var baselines: [String: Figure] = [:]
        for m in results where !m.isBackend { baselines[m.variant + "|" + m.subject] = m }
        return results.compactMap { m in
            // A subject the time budget gave fewer rounds dropped out of the later rounds: the
            // rounds both took are the first ones of each.
            guard m.isBackend, let name = m.baseline, let b = baselines[m.variant + "|" + name],
                let values = m.values, let baseValues = b.values, min(values.count, baseValues.count) >= 2
            else { return nil }
            let rounds = zip(values, baseValues).compactMap { value, base -> Double? in
                guard value > 0, base > 0, value.isFinite, base.isFinite else { return nil }
                return m.lowerIsBetter ? value / base : base / value
            }
            guard rounds.count == min(values.count, baseValues.count), let low = rounds.min(), let high = rounds.max() else { return nil }
            let spread = high / low
            let verdict = RepeatVerdict(rounds)
            return RatioStability(
                variant: String(m.variant), subject: m.subject, baseline: name, rounds: rounds, spread: spread,
                stable: spread <= limit, medianRatio: verdict.median, intervalLow: verdict.low, intervalHigh: verdict.high,
                repeatable: verdict.repeatable)
        }
    }

    /// One line of the text report.
    var line: String {
        let verdict = stable ? "stable  " : "UNSTABLE"
        let values = rounds.map { formatNumber($0) }.joined(separator: " ")
        return "\(verdict)  \(variant) \(subject)/\(baseline): rounds \(values) (spread \(formatNumber(spread))x)"
            + (repeatLine.map { "; " + $0 } ?? "")
    }

    /// The repeat-level verdict in words: `median 1.12, 95 % 1.05-1.19: repeatable`.
    var repeatLine: String? {
        guard let medianRatio, let intervalLow, let intervalHigh, let repeatable else { return nil }
        return "median \(formatNumber(medianRatio)), 95 % \(formatNumber(intervalLow))-\(formatNumber(intervalHigh)): "
            + (repeatable ? "repeatable" : "NOT repeatable")
    }
}

extension Report {
    /// Fills in `ratioStability` from the results.
    mutating func judgeRatioStability() {
        let judged = RatioStability.judge(results)
        ratioStability = judged.isEmpty ? nil : judged
    }
}
