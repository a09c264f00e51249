import Foundation

/// `bench compare OLD.json NEW.json`: figures present in both reports, matched by case and
/// subject, and which moved beyond the noise: the two min..max ranges do not overlap and the
/// medians differ by at least `threshold`.
func compareReports(old: Report, new: Report, threshold: Double = 0.05) -> String {
    var oldByKey: [String: Measurement] = [:]
    for m in old.results { oldByKey[m.caseName + "|" + m.subject] = m }
    var faster: [String] = []
    var slower: [String] = []
    var same = 0
    var unmatched = 0
    for m in new.results {
        guard let o = oldByKey[m.caseName + "|" + m.subject], o.unit == m.unit,
              o.median.isFinite, m.median.isFinite, o.median > 0, m.median > 0 else {
            unmatched += 1
            continue
        }
        // The heap-return check is a verdict over a noisy difference: compare the verdicts.
        if let verdict = m.note.flatMap(verdictOf), let before = o.note.flatMap(verdictOf) {
            if verdict == before {
                same += 1
            } else {
                let line = "  \(m.caseName) \(m.subject): \(before) -> \(verdict)"
                if verdict == "back at baseline" { faster.append(line) } else { slower.append(line) }
            }
            continue
        }
        let overlap = m.min <= o.max && o.min <= m.max
        let change = m.median / o.median
        guard !overlap, abs(change - 1) >= threshold else {
            same += 1
            continue
        }
        let better = m.lowerIsBetter ? change < 1 : change > 1
        let factor = m.lowerIsBetter ? 1 / change : change
        let line = "  \(m.caseName) \(m.subject): \(formatNumber(o.median)) -> \(formatNumber(m.median)) \(m.unit) "
            + (better ? String(format: "(%.2fx better)", factor) : String(format: "(%.2fx worse)", 1 / factor))
        if better { faster.append(line) } else { slower.append(line) }
    }
    var out = "compare: \(old.date) (\(old.machine.cores) cores) -> \(new.date) (\(new.machine.cores) cores)\n"
    if old.quick != new.quick { out += "note: one run is --quick and the other is not; sizes may differ\n" }
    out += "better beyond the noise (\(faster.count)):\n" + (faster.isEmpty ? "  none\n" : faster.joined(separator: "\n") + "\n")
    out += "worse beyond the noise (\(slower.count)):\n" + (slower.isEmpty ? "  none\n" : slower.joined(separator: "\n") + "\n")
    out += "within the noise: \(same); only in one report or not comparable: \(unmatched)\n"
    return out
}

/// "back at baseline" or "NOT back at baseline" from a memory-return note, else `nil`.
private func verdictOf(_ note: String) -> String? {
    for verdict in ["NOT back at baseline", "back at baseline"] where note.hasPrefix(verdict) { return verdict }
    return nil
}

/// Reads a JSON report written by `--format json`.
func loadReport(_ path: String) throws -> Report {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    return try JSONDecoder().decode(Report.self, from: data)
}
