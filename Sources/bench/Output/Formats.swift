import Foundation

/// Renders a report in one of the output formats.
func render(_ report: Report, as format: OutputFormat) -> String {
    switch format {
    case .table: return renderTable(report)
    case .json: return renderJSON(report)
    case .csv: return renderCSV(report)
    case .markdown: return renderMarkdown(report)
    }
}

func renderJSON(_ report: Report) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    // NaN (a figure that could not be measured) is not valid JSON: it is written as null.
    guard let data = try? encoder.encode(report.withoutNaN()) else { return "{}" }
    return String(decoding: data, as: UTF8.self) + "\n"
}

/// A number for people: 4 significant digits, with an SI suffix from 10,000 up (12.35k, 2.283M).
func formatNumber(_ x: Double?) -> String {
    guard let x, x.isFinite else { return "n/a" }
    let a = abs(roundedSignificant(x))
    if a >= 1e9 { return plainSignificant(x / 1e9) + "G" }
    if a >= 1e6 { return plainSignificant(x / 1e6) + "M" }
    if a >= 1e4 { return plainSignificant(x / 1e3) + "k" }
    return plainSignificant(x)
}

func formatRatio(_ m: Figure) -> String {
    guard let ratio = m.ratio else { return m.isBackend ? "n/a" : "baseline" }
    return formatNumber(ratio) + "x vs \(m.baseline ?? "?")"
}

func formatSpread(_ m: Figure) -> String {
    m.repetitions > 1 ? "\(formatNumber(m.min))..\(formatNumber(m.max))" : "(1 run)"
}

func formatPercentiles(_ m: Figure) -> String {
    guard let p = m.percentiles else { return "" }
    return "p50 \(formatNumber(p.p50)) p90 \(formatNumber(p.p90)) p99 \(formatNumber(p.p99)) max \(formatNumber(p.max))"
}

func renderTable(_ report: Report) -> String {
    var out = "bench: \(report.machine.summary)\n"
    out += "run \(report.date), \(report.quick ? "--quick" : "default"), \(String(format: "%.1f", report.durationSeconds)) s; "
    out += "ratio = cost relative to the baseline named (above 1: costlier)\n"
    let header = ["case", "subject", "median", "min..max", "unit", "ratio", "detail"]
    for scenario in report.scenarios {
        let rows = report.results.filter { $0.scenario == scenario }
        guard !rows.isEmpty else { continue }
        out += "\n== \(scenario)\n"
        let cells = rows.map { m in
            [
                m.caseName, m.subject, formatNumber(m.median), formatSpread(m), m.unit, formatRatio(m),
                [formatPercentiles(m), m.note ?? ""].filter { !$0.isEmpty }.joined(separator: "; ")
            ]
        }
        let widths = (0..<header.count).map { column in
            ([header] + cells).map { $0[column].count }.max() ?? 0
        }
        for row in [header] + cells {
            let padded = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }
            out += padded.joined(separator: "  ").trimmingCharacters(in: .whitespaces) + "\n"
        }
    }
    if let scaling = report.scaling {
        out += "\n== scaling: per-unit cost at the largest size against the cheapest smaller one "
        out += "(SUPERLINEAR: more than \(formatNumber(ScalingFinding.limit))x beyond the spread)\n"
        out += scalingLines(scaling).map { $0 + "\n" }.joined()
    }
    if let stability = report.ratioStability {
        out += "\n== ratio stability: each round's ratio to its baseline (stable: the rounds within "
        out += "\(formatNumber(RatioStability.limit))x of each other; repeatable: the 95 % bootstrap interval of "
        out += "the rounds' median within \(Int(RepeatVerdict.margin * 100)) % of it)\n"
        out += stability.map { $0.line + "\n" }.joined()
    }
    if !report.aims.isEmpty {
        out += "\n== aims\n"
        for aim in report.aims {
            let verdict = aim.met.map { $0 ? "met    " : "NOT met" } ?? "n/a    "
            out += "\(verdict)  \(aim.subject): \(aim.aim) - \(aim.detail)\n"
        }
    }
    return out
}

func renderMarkdown(_ report: Report) -> String {
    var out = "Machine: \(report.machine.summary). Run \(report.date), "
    out += "\(report.quick ? "`--quick`" : "default run"), \(String(format: "%.1f", report.durationSeconds)) s.\n\n"
    out += "| scenario | case | subject | median | min..max | unit | ratio | detail |\n"
    out += "|---|---|---|---:|---:|---|---:|---|\n"
    for m in report.results {
        let detail = [formatPercentiles(m), m.note ?? ""].filter { !$0.isEmpty }.joined(separator: "; ")
        out += "| \(m.scenario) | `\(m.caseName)` | \(m.subject) | \(formatNumber(m.median)) | \(formatSpread(m)) "
        out += "| \(m.unit) | \(formatRatio(m)) | \(detail.replacingOccurrences(of: "|", with: "/")) |\n"
    }
    if let scaling = report.scaling {
        out += "\n| scaling curve | subject | verdict | per-unit cost, cheapest to largest size |\n|---|---|---|---|\n"
        for f in scaling {
            out += "| `\(f.series)` | \(f.subject) | \(f.superlinear ? "**superlinear**" : "linear") | \(f.detail) |\n"
        }
    }
    if let stability = report.ratioStability {
        out += "\n| ratio | subject / baseline | each round | spread | stable | median, 95 % interval | repeatable |\n"
        out += "|---|---|---|---:|---|---|---|\n"
        for r in stability {
            out += "| `\(r.variant)` | \(r.subject) / \(r.baseline) | \(r.rounds.map { formatNumber($0) }.joined(separator: " ")) "
            out += "| \(formatNumber(r.spread))x | \(r.stable ? "yes" : "**no**") "
            if let median = r.medianRatio, let low = r.intervalLow, let high = r.intervalHigh, let repeatable = r.repeatable {
                out += "| \(formatNumber(median)) (\(formatNumber(low))-\(formatNumber(high))) | \(repeatable ? "yes" : "**no**") |\n"
            } else {
                out += "| | |\n"
            }
        }
    }
    if !report.aims.isEmpty {
        out += "\n| aim | subject | met | detail |\n|---|---|---|---|\n"
        for aim in report.aims {
            out += "| \(aim.aim) | \(aim.subject) | \(aim.met.map { $0 ? "yes" : "**no**" } ?? "n/a") | \(aim.detail) |\n"
        }
    }
    return out
}

func renderCSV(_ report: Report) -> String {
    func field(_ text: String) -> String {
        text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" })
            ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }
    func number(_ x: Double?) -> String {
        guard let x, x.isFinite else { return "" }
        return plainSignificant(x)
    }
    var out = "scenario,case,subject,kind,unit,better,median,min,max,repetitions,samples,p50,p90,p99,pmax,"
    out += "baseline,ratio,ratio_min,ratio_max,note\n"
    for m in report.results {
        let p = m.percentiles
        let row: [String] = [
            m.scenario, m.caseName, m.subject, m.kind, m.unit, m.better, number(m.median), number(m.min),
            number(m.max), String(m.repetitions), m.samples.map(String.init) ?? "", number(p?.p50),
            number(p?.p90), number(p?.p99), number(p?.max), m.baseline ?? "", number(m.ratio),
            number(m.ratioMin), number(m.ratioMax), m.note ?? ""
        ]
        out += row.map(field).joined(separator: ",") + "\n"
    }
    return out
}

extension Report {
    /// The report with every NaN or infinite figure replaced by JSON-safe values.
    func withoutNaN() -> Report {
        var copy = self
        func clean(_ x: Double) -> Double { x.isFinite ? x : -1 }
        func clean(_ x: Double?) -> Double? { x.flatMap { $0.isFinite ? $0 : nil } }
        copy.results = results.map { m in
            var m = m
            if !m.median.isFinite {
                m.note = [m.note, "not measured (written as -1)"].compactMap { $0 }.joined(separator: "; ")
            }
            m.median = clean(m.median)
            m.min = clean(m.min)
            m.max = clean(m.max)
            m.ratio = clean(m.ratio)
            m.ratioMin = clean(m.ratioMin)
            m.ratioMax = clean(m.ratioMax)
            m.values = m.values?.map(clean)
            return m
        }
        return copy
    }
}
