import Foundation

/// The report as an SVG chart, written by hand (no dependency): a legend with one colour per
/// backend; one panel per scenario with a bar per backend figure for its cost ratio to the
/// same-run baseline on a log scale, the min..max whisker, and the ratio with the absolute
/// median beside it; the stack depths against the 1,000,000-link goal; the memory-return check
/// as a verdict; the scaling curves, log-log, against a line of linear growth
/// (SVGChart+Scaling.swift). Every width comes from the length of the text it holds (monospace font), so
/// nothing is clipped.
func renderSVG(_ report: Report) -> String {
    SVGChart(report).render()
}

struct SVGChart {
    let report: Report
    let font = 11.0
    let rowHeight = 18.0
    let margin = 12.0
    let plotWidth = 420.0
    let palette = ["#1f77b4", "#e6730b", "#2ca02c", "#9467bd", "#8c564b", "#d62728", "#17becf"]
    let backends: [String]
    let ratioRows: [(scenario: String, rows: [Figure])]
    let depthRows: [Figure]
    let verdictRows: [Figure]
    let low: Double
    let high: Double

    init(_ report: Report) {
        self.report = report
        let figures = report.results.filter(\.isBackend)
        var names = report.backends
        for m in figures where !names.contains(m.subject) { names.append(m.subject) }
        backends = names
        depthRows = report.results.filter { $0.variant.hasPrefix("stack.deepest-") }
        verdictRows = figures.filter { $0.note.flatMap(verdictOf) != nil }
        var panels: [(String, [Figure])] = []
        for scenario in report.scenarios {
            let rows = figures.filter {
                $0.scenario == scenario && SVGChart.hasRatio($0) && !$0.variant.hasPrefix("stack.deepest-")
                    && $0.workSize == nil
                    && $0.note.flatMap(verdictOf) == nil
            }
            if !rows.isEmpty { panels.append((scenario, rows)) }
        }
        ratioRows = panels.map { (scenario: $0.0, rows: $0.1) }
        let ratios = ratioRows.flatMap(\.rows).flatMap { [$0.ratio, $0.ratioMin, $0.ratioMax] }
            .compactMap { $0 }.filter { $0 > 0 && $0.isFinite }
        // Whole decades that hold every ratio and whisker, and always 0.1x..10x.
        low = pow(10, Swift.min(-1, (log10(ratios.min() ?? 1)).rounded(.down)))
        high = pow(10, Swift.max(1, (log10(ratios.max() ?? 1)).rounded(.up)))
    }

    static func hasRatio(_ m: Figure) -> Bool {
        guard let ratio = m.ratio else { return false }
        return ratio > 0 && ratio.isFinite
    }

    /// Width of `text` in the chart's monospace font (DejaVu Sans Mono advances 0.602 em; a little more for fallbacks).
    func textWidth(_ text: String, size: Double? = nil) -> Double {
        Double(text.count) * 0.62 * (size ?? font)
    }

    func color(_ subject: String) -> String {
        backends.firstIndex(of: subject).map { palette[$0 % palette.count] } ?? "#888888"
    }

    func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    func number(_ x: Double) -> String { String(format: "%.1f", x) }

    func text(
        _ content: String, x: Double, y: Double, size: Double? = nil, anchor: String = "start",
        bold: Bool = false, fill: String = "#222"
    ) -> String {
        var out = "<text x=\"\(number(x))\" y=\"\(number(y))\" font-size=\"\(number(size ?? font))\""
        if anchor != "start" { out += " text-anchor=\"\(anchor)\"" }
        if bold { out += " font-weight=\"bold\"" }
        if fill != "#222" { out += " fill=\"\(fill)\"" }
        return out + ">\(escape(content))</text>\n"
    }

    func rect(x: Double, y: Double, width: Double, height: Double, fill: String) -> String {
        "<rect x=\"\(number(x))\" y=\"\(number(y))\" width=\"\(number(Swift.max(width, 1)))\" "
            + "height=\"\(number(height))\" fill=\"\(fill)\"/>\n"
    }

    func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String, dash: String? = nil) -> String {
        "<line x1=\"\(number(x1))\" y1=\"\(number(y1))\" x2=\"\(number(x2))\" y2=\"\(number(y2))\" "
            + "stroke=\"\(stroke)\"" + (dash.map { " stroke-dasharray=\"\($0)\"" } ?? "") + "/>\n"
    }

    /// The label left of a row's bar.
    func label(_ m: Figure) -> String { "\(m.caseName)  \(m.subject)" }

    /// The figure right of a row's bar: ratio, baseline, and the absolute median.
    func value(_ m: Figure) -> String {
        "\(formatNumber(m.ratio))x vs \(m.baseline ?? "?")  (\(formatNumber(m.median)) \(m.unit))"
    }

    func depthText(_ m: Figure) -> String {
        let goal = Double(StackScenario.target)
        let reached = formatNumber(m.median) + " links"
        if m.median >= goal { return reached + ": goal reached" }
        if m.note?.contains(StackScenario.timeoutMarker) ?? false { return reached + ": 1M not finished in time, undecided" }
        if report.quick && m.note == nil { return reached + ": --quick probes no deeper" }
        return reached + ": overflowed deeper"
    }

    func verdictText(_ m: Figure) -> String {
        let verdict = m.note.flatMap(verdictOf) ?? "?"
        let detail = m.note.map { $0.dropFirst(verdict.count).drop { $0 == ":" || $0 == " " } } ?? ""
        return (verdict == "back at baseline" ? "yes: " : "NO: ") + verdict + (detail.isEmpty ? "" : " (\(detail))")
    }

    /// The SVG being drawn: its elements, the next row's top, and the rightmost ink so far.
    struct Canvas {
        var body = ""
        var y = 0.0
        var right = 0.0
    }

    /// A bold heading line, the width of its text counted.
    func heading(_ title: String, on canvas: inout Canvas) {
        canvas.y += 18
        canvas.body += text(title, x: margin, y: canvas.y, size: 13, bold: true)
        canvas.right = Swift.max(canvas.right, margin + textWidth(title, size: 13))
    }

    /// One row: the label right-aligned at `labelRight`, then `draw`, then `figure` at `figureX`.
    func row(
        _ m: Figure, labelRight: Double, figure: String, at figureX: Double, bold: Bool = false,
        fill: String = "#222", on canvas: inout Canvas, draw: (Double) -> String = { _ in "" }
    ) {
        let mid = canvas.y + rowHeight / 2
        canvas.body += text(label(m), x: labelRight, y: mid + 4, anchor: "end")
        canvas.body += draw(mid)
        canvas.body += text(figure, x: figureX, y: mid + 4, bold: bold, fill: fill)
        canvas.right = Swift.max(canvas.right, figureX + textWidth(figure))
        canvas.y += rowHeight
    }

    func render() -> String {
        let labels = ratioRows.flatMap(\.rows).map(label) + depthRows.map(label) + verdictRows.map(label)
        let plotLeft = (labels.map { textWidth($0) }.max() ?? 100) + 2 * margin
        let plotRight = plotLeft + plotWidth
        func x(_ ratio: Double) -> Double {
            plotLeft + (log10(Swift.min(Swift.max(ratio, low), high)) - log10(low)) / (log10(high) - log10(low)) * plotWidth
        }
        var canvas = Canvas(body: "", y: margin - 4, right: plotRight)
        heading(
            ratioRows.isEmpty && depthRows.isEmpty && verdictRows.isEmpty
                ? "How each cost grows with the work, next to raw baselines measured in the same run"
                : "Cost ratio of each backend to a baseline measured in the same run (log scale; left of 1x: cheaper)",
            on: &canvas)
        canvas.y += 16
        let subtitle = "\(report.date), \(report.quick ? "--quick" : "default run"); \(report.machine.summary)"
        canvas.body += text(subtitle, x: margin, y: canvas.y, fill: "#555")
        canvas.right = Swift.max(canvas.right, margin + textWidth(subtitle))
        canvas.y += 20
        // Legend: one swatch per backend, then the baselines' grey.
        var legendX = margin
        for (name, fill) in backends.map({ ($0, color($0)) }) + [("baseline", "#888888")] {
            canvas.body += rect(x: legendX, y: canvas.y - 10, width: 12, height: 12, fill: fill)
            canvas.body += text(name, x: legendX + 16, y: canvas.y)
            legendX += 16 + textWidth(name) + 18
        }
        canvas.right = Swift.max(canvas.right, legendX)
        canvas.y += 14

        let ticks = tickValues(x: x)
        for panel in ratioRows {
            heading(panel.scenario, on: &canvas)
            for tick in ticks {
                canvas.body += text(tickLabel(tick), x: x(tick), y: canvas.y, size: 10, anchor: "middle", fill: "#555")
            }
            canvas.y += 6
            let top = canvas.y
            let bottom = top + rowHeight * Double(panel.rows.count)
            for tick in ticks { canvas.body += line(x(tick), top, x(tick), bottom, stroke: "#e4e4e4") }
            for m in panel.rows {
                let ratio = m.ratio ?? 1
                var end = Swift.max(x(1), x(ratio))
                let whisker = [m.ratioMin, m.ratioMax].compactMap { $0 }.filter { $0 > 0 && $0.isFinite }
                if whisker.count == 2 { end = Swift.max(end, x(whisker[1])) }
                let top = canvas.y
                row(m, labelRight: plotLeft - margin, figure: value(m), at: end + 6, on: &canvas) { mid in
                    var ink = rect(
                        x: Swift.min(x(1), x(ratio)), y: top + 3, width: abs(x(ratio) - x(1)),
                        height: rowHeight - 6, fill: color(m.subject))
                    if whisker.count == 2 {
                        let (lo, hi) = (x(whisker[0]), x(whisker[1]))
                        ink +=
                            line(lo, mid, hi, mid, stroke: "#333") + line(lo, mid - 3, lo, mid + 3, stroke: "#333")
                            + line(hi, mid - 3, hi, mid + 3, stroke: "#333")
                    }
                    return ink
                }
            }
            canvas.body += line(x(1), top, x(1), canvas.y, stroke: "#000", dash: "4,3")
        }

        if !depthRows.isEmpty {
            heading(
                "stack: deepest chain completing on a \(StackScenario.stackKiB) KiB stack, against the 1,000,000-link goal",
                on: &canvas)
            canvas.y += 6
            let top = canvas.y
            let goal = Double(StackScenario.target)
            for m in depthRows {
                let reached = m.median.isFinite ? Swift.min(Swift.max(m.median, 0), goal) : 0
                let rowTop = canvas.y
                row(m, labelRight: plotLeft - margin, figure: depthText(m), at: plotRight + 6, on: &canvas) { _ in
                    rect(
                        x: plotLeft, y: rowTop + 3, width: reached / goal * plotWidth, height: rowHeight - 6,
                        fill: m.isBackend ? color(m.subject) : "#888888")
                }
            }
            canvas.body += line(plotRight, top, plotRight, canvas.y, stroke: "#000", dash: "4,3")
            canvas.body += text("goal 1M", x: plotRight, y: canvas.y + 12, size: 10, anchor: "middle", fill: "#555")
            canvas.y += 12
        }

        if !verdictRows.isEmpty {
            heading("memory: heap back at its baseline after the tasks completed?", on: &canvas)
            canvas.y += 6
            for m in verdictRows {
                let verdict = verdictText(m)
                row(
                    m, labelRight: plotLeft - margin, figure: verdict, at: plotLeft, bold: true,
                    fill: verdict.hasPrefix("yes") ? "#1a7f37" : "#c0392b", on: &canvas)
            }
        }

        drawScaling(left: plotLeft, on: &canvas)

        let width = (canvas.right + margin).rounded(.up)
        let height = (canvas.y + margin).rounded(.up)
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" "
        svg += "viewBox=\"0 0 \(Int(width)) \(Int(height))\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\">\n"
        svg += "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"
        return svg + canvas.body + "</svg>\n"
    }

    /// Decades always; 2x and 5x steps only where their labels have room.
    func tickValues(x: (Double) -> Double) -> [Double] {
        var decades: [Double] = []
        var tick = low
        while tick <= high * 1.0001 {
            decades.append(tick)
            tick *= 10
        }
        let decadeWidth = decades.count > 1 ? x(decades[1]) - x(decades[0]) : plotWidth
        // Between 5x and the next decade lies 0.3 of a decade on a log scale: the narrowest gap,
        // which must hold half of each neighbouring label and a clear space.
        let widest = decades.map { textWidth(tickLabel($0 * 10), size: 10) }.max() ?? 0
        guard decadeWidth * 0.30 > widest + 12 else { return decades }
        return decades.flatMap { d in [d, d * 2, d * 5].filter { $0 <= high * 1.0001 } }
    }

    func tickLabel(_ value: Double) -> String { formatNumber(value) + "x" }
}
