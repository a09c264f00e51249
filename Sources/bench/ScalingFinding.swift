/// One curve of the scaling scenario for one subject, judged: linear when its per-unit cost at
/// the largest size is within `limit` times the cheapest per-unit cost at any smaller size;
/// superlinear, a finding, when it grew more than that beyond the noise (the largest size's
/// fastest repetition against the cheapest size's slowest).
///
/// Against the cheapest size, not the smallest: a small size carries its round's fixed cost
/// (making the task, waking the timing thread) divided by few units, which would hide a rise
/// from a middle size on.
struct ScalingFinding: Codable, Sendable, Equatable {
    static let limit = 2.0

    /// The curve, `scaling.chain-pending-inline`, and whose it is.
    var series: String
    var subject: String
    /// The per-unit cost's unit, `ns/link`.
    var unit: String
    /// The smaller size with the lowest median per-unit cost, and that cost.
    var cheapestSize: Int
    var cheapest: Double
    /// The largest size and its median per-unit cost.
    var largestSize: Int
    var largest: Double
    /// `largest / cheapest`.
    var growth: Double
    /// The growth the spreads allow at least: the largest size's fastest repetition over the
    /// cheapest size's slowest.
    var growthLow: Double
    /// `growthLow > limit`.
    var superlinear: Bool
    /// The figures in words, and the baseline's own growth where the subject has one.
    var detail: String
}

/// The scaling curves of `results`, one per series and subject, in the order first measured.
func scalingFindings(_ results: [Figure]) -> [ScalingFinding] {
    var order: [String] = []
    var curves: [String: [Figure]] = [:]
    for m in results where m.workSize != nil && m.median.isFinite && m.median > 0 {
        let key = m.series + "|" + m.subject
        if curves[key] == nil { order.append(key) }
        curves[key, default: []].append(m)
    }
    var findings: [ScalingFinding] = []
    for key in order {
        let points = (curves[key] ?? []).sorted { ($0.workSize ?? 0) < ($1.workSize ?? 0) }
        guard let last = points.last, let size = last.workSize, points.count >= 2,
            let cheapest = points.dropLast().min(by: { $0.median < $1.median }), let low = cheapest.workSize
        else { continue }
        let growth = last.median / cheapest.median
        let growthLow = last.min / cheapest.max
        let item = last.unit.split(separator: "/").last.map(String.init) ?? "unit"
        let detail =
            "\(formatNumber(cheapest.median)) \(last.unit) at \(sizeLabel(low)) \(plural(item)) (cheapest), "
            + "\(formatNumber(last.median)) at \(sizeLabel(size)): \(formatNumber(growth))x, "
            + "at least \(formatNumber(growthLow))x beyond the spread"
        findings.append(
            ScalingFinding(
                series: String(last.series), subject: last.subject, unit: last.unit, cheapestSize: low,
                cheapest: cheapest.median, largestSize: size, largest: last.median, growth: growth,
                growthLow: growthLow, superlinear: growthLow > ScalingFinding.limit, detail: detail))
    }
    // Each backend's curve next to its baseline's: a rise the raw code shares is the machine's.
    for index in findings.indices {
        let finding = findings[index]
        guard
            let name = results.first(where: { $0.series == finding.series && $0.subject == finding.subject })?.baseline,
            let base = findings.first(where: { $0.series == finding.series && $0.subject == name })
        else { continue }
        findings[index].detail += "; baseline \(name): \(formatNumber(base.growth))x"
    }
    return findings
}

extension Report {
    /// Sets `scaling` from the results (nil without scaling figures), and marks the largest
    /// point of each superlinear curve in its note, so that every format shows the finding.
    mutating func judgeScaling() {
        let findings = scalingFindings(results)
        scaling = findings.isEmpty ? nil : findings
        for finding in findings where finding.superlinear {
            guard
                let index = results.firstIndex(where: {
                    $0.series == finding.series && $0.subject == finding.subject && $0.workSize == finding.largestSize
                })
            else { continue }
            let mark = "SUPERLINEAR: " + finding.detail
            if !(results[index].note?.contains("SUPERLINEAR") ?? false) {
                results[index].note = [results[index].note, mark].compactMap { $0 }.joined(separator: "; ")
            }
        }
    }
}

/// The scaling verdicts as text lines: `SUPERLINEAR` or `linear`, the curve, the subject, the detail.
func scalingLines(_ findings: [ScalingFinding]) -> [String] {
    findings.map { f in
        "\(f.superlinear ? "SUPERLINEAR" : "linear     ")  \(f.series) \(f.subject): \(f.detail)"
    }
}

/// The plural of a unit of work: link -> links, body -> bodies.
func plural(_ item: String) -> String {
    item.hasSuffix("y") ? item.dropLast() + "ies" : item + "s"
}
