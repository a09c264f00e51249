import Foundation

/// A plain SVG chart of each scenario's cost ratios: one panel per scenario, one horizontal bar
/// per backend figure, on a log scale with the baseline (1x) marked. Written by hand: no
/// dependency.
func renderSVG(_ report: Report) -> String {
    let width = 900.0
    let labelWidth = 330.0
    let plotWidth = width - labelWidth - 90
    let barHeight = 18.0
    let panelGap = 36.0
    let ratios = report.results.compactMap { $0.ratio }.filter { $0 > 0 && $0.isFinite }
    // The scale spans the data, and always 0.5x..2x around the baseline.
    let low = min(0.5, ratios.min() ?? 0.5)
    let high = max(2.0, ratios.max() ?? 2.0)
    let logLow = log10(low)
    let logHigh = log10(high)
    func x(_ ratio: Double) -> Double {
        labelWidth + (log10(min(max(ratio, low), high)) - logLow) / (logHigh - logLow) * plotWidth
    }
    func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    var body = ""
    var y = 60.0
    for scenario in report.scenarios {
        let rows = report.results.filter { $0.scenario == scenario && $0.isBackend }
        guard !rows.isEmpty else { continue }
        body += "<text x=\"10\" y=\"\(y)\" font-weight=\"bold\" font-size=\"14\">\(escape(scenario))</text>\n"
        y += 10
        let top = y
        for m in rows {
            let label = "\(m.caseName) \(m.subject)"
            body += "<text x=\"\(labelWidth - 6)\" y=\"\(y + barHeight * 0.75)\" text-anchor=\"end\" font-size=\"11\">"
            body += "\(escape(label))</text>\n"
            if let ratio = m.ratio, ratio > 0, ratio.isFinite {
                let start = x(1)
                let end = x(ratio)
                let color = ratio <= 1 ? "#4a9a5b" : (ratio <= 1.25 ? "#d9a33a" : "#c4473a")
                body += "<rect x=\"\(min(start, end))\" y=\"\(y + 2)\" width=\"\(max(abs(end - start), 1))\" "
                body += "height=\"\(barHeight - 4)\" fill=\"\(color)\"/>\n"
                if let lo = m.ratioMin, let hi = m.ratioMax, lo > 0, hi > 0 {
                    body += "<line x1=\"\(x(lo))\" x2=\"\(x(hi))\" y1=\"\(y + barHeight / 2)\" "
                    body += "y2=\"\(y + barHeight / 2)\" stroke=\"#333\" stroke-width=\"1\"/>\n"
                }
                body += "<text x=\"\(max(start, end) + 4)\" y=\"\(y + barHeight * 0.75)\" font-size=\"11\">"
                body += String(format: "%.2fx", ratio) + " vs \(escape(m.baseline ?? ""))</text>\n"
            } else {
                body += "<text x=\"\(x(1) + 4)\" y=\"\(y + barHeight * 0.75)\" font-size=\"11\" fill=\"#777\">"
                body += "no ratio</text>\n"
            }
            y += barHeight
        }
        body += "<line x1=\"\(x(1))\" x2=\"\(x(1))\" y1=\"\(top)\" y2=\"\(y)\" stroke=\"#000\" stroke-dasharray=\"3,2\"/>\n"
        y += panelGap
    }
    var ticks = ""
    var tick = pow(10, floor(logLow))
    while tick <= high * 1.0001 {
        for factor in [1.0, 2.0, 5.0] where tick * factor >= low && tick * factor <= high {
            let value = tick * factor
            ticks += "<line x1=\"\(x(value))\" x2=\"\(x(value))\" y1=\"40\" y2=\"\(y - panelGap)\" stroke=\"#ddd\"/>\n"
            ticks += "<text x=\"\(x(value))\" y=\"36\" font-size=\"10\" text-anchor=\"middle\">"
            ticks += (value < 1 ? String(format: "%gx", value) : String(format: "%.0fx", value)) + "</text>\n"
        }
        tick *= 10
    }
    let height = y
    var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" "
    svg += "font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"
    svg += "<text x=\"10\" y=\"18\" font-size=\"12\">cost ratio to baseline, log scale (left of the dashed 1x line: "
    svg += "cheaper than the baseline); \(escape(report.machine.summary))</text>\n"
    return svg + ticks + body + "</svg>\n"
}
