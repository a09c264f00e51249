import Foundation

/// The scaling scenario's panels: one log-log plot per curve, total time against size, a line
/// per subject (backends in their colour, raw baselines grey and dashed) and a dotted line of
/// slope 1 (linear growth) through the first backend's cheapest point; a curve that bends up
/// away from it grows superlinearly. Under each plot, every subject's verdict.
extension SVGChart {
    static let scalingPlotHeight = 190.0

    /// The scaling figures by curve (in the order measured), each subject's points by size.
    var scalingCurves: [(series: String, subjects: [(subject: String, points: [Figure])])] {
        var curves: [(series: String, subjects: [(subject: String, points: [Figure])])] = []
        for m in report.results where m.workSize != nil && m.median.isFinite && m.median > 0 {
            let series = String(m.series)
            if !curves.contains(where: { $0.series == series }) { curves.append((series, [])) }
            let c = curves.firstIndex { $0.series == series } ?? 0
            if let s = curves[c].subjects.firstIndex(where: { $0.subject == m.subject }) {
                curves[c].subjects[s].points.append(m)
            } else {
                curves[c].subjects.append((m.subject, [m]))
            }
        }
        return curves.map { curve in
            (curve.series, curve.subjects.map { ($0.subject, $0.points.sorted { ($0.workSize ?? 0) < ($1.workSize ?? 0) }) })
        }
    }

    /// A total time in nanoseconds as a short label: 1us, 10ms, 1s.
    func durationLabel(_ nanos: Double) -> String {
        for (scale, unit) in [(1e9, "s"), (1e6, "ms"), (1e3, "us")] where nanos >= scale {
            return formatNumber(nanos / scale) + unit
        }
        return formatNumber(nanos) + "ns"
    }

    /// Draws every scaling panel between `left` and `left + plotWidth`.
    func drawScaling(left: Double, on canvas: inout Canvas) {
        let findings = report.scaling ?? scalingFindings(report.results)
        for curve in scalingCurves {
            let totals = curve.subjects.flatMap(\.points).map { $0.median * Double($0.workSize ?? 1) }
            let sizes = curve.subjects.flatMap(\.points).compactMap(\.workSize).map(Double.init)
            guard let minSize = sizes.min(), let maxSize = sizes.max(), maxSize > minSize,
                let minTotal = totals.min(), let maxTotal = totals.max()
            else { continue }
            let item = curve.subjects.first?.points.first?.unit.split(separator: "/").last.map(String.init) ?? "unit"
            heading(
                "\(curve.series): processor time, all threads, against \(plural(item)) (log-log; dotted: linear growth)", on: &canvas)
            canvas.y += 10
            let top = canvas.y
            let height = SVGChart.scalingPlotHeight
            let (x0, x1) = (log10(minSize), log10(maxSize))
            let (y0, y1) = ((log10(minTotal)).rounded(.down), (log10(maxTotal)).rounded(.up))
            func x(_ size: Double) -> Double { left + (log10(size) - x0) / (x1 - x0) * plotWidth }
            func y(_ total: Double) -> Double { top + height - (log10(total) - y0) / Swift.max(y1 - y0, 1) * height }
            // Grid: every decade of time, every size measured.
            for decade in stride(from: y0, through: y1, by: 1) {
                let v = pow(10, decade)
                canvas.body += line(left, y(v), left + plotWidth, y(v), stroke: "#e4e4e4")
                canvas.body += text(durationLabel(v), x: left - 6, y: y(v) + 4, size: 10, anchor: "end", fill: "#555")
            }
            for size in Set(sizes).sorted() {
                canvas.body += line(x(size), top, x(size), top + height, stroke: "#f0f0f0")
                canvas.body += text(
                    sizeLabel(Int(size)), x: x(size), y: top + height + 14, size: 10, anchor: "middle", fill: "#555")
            }
            canvas.body += line(left, top + height, left + plotWidth, top + height, stroke: "#000")
            canvas.body += line(left, top, left, top + height, stroke: "#000")
            // Linear: slope 1 through the first backend's cheapest point, clipped to the plot.
            if let anchor = findings.first(where: { $0.series == curve.series && isBackendSubject($0.subject) }) {
                let perUnit = anchor.cheapest
                let from = Swift.max(minSize, pow(10, y0) / perUnit)
                let to = Swift.min(maxSize, pow(10, y1) / perUnit)
                if to > from {
                    canvas.body += line(x(from), y(from * perUnit), x(to), y(to * perUnit), stroke: "#000", dash: "2,3")
                }
            }
            for (subject, points) in curve.subjects {
                let baseline = !isBackendSubject(subject)
                let stroke = baseline ? "#888888" : color(subject)
                let coordinates = points.map { p -> String in
                    let size = Double(p.workSize ?? 1)
                    return "\(number(x(size))),\(number(y(p.median * size)))"
                }
                canvas.body +=
                    "<polyline points=\"\(coordinates.joined(separator: " "))\" fill=\"none\" stroke=\"\(stroke)\" "
                    + "stroke-width=\"1.5\"" + (baseline ? " stroke-dasharray=\"5,3\"" : "") + "/>\n"
                for p in points {
                    let size = Double(p.workSize ?? 1)
                    canvas.body +=
                        "<circle cx=\"\(number(x(size)))\" cy=\"\(number(y(p.median * size)))\" r=\"2.5\" fill=\"\(stroke)\"/>\n"
                }
                // The baselines share a grey: each is named at its line's end.
                if baseline, let last = points.last {
                    let size = Double(last.workSize ?? 1)
                    canvas.body += text(subject, x: x(size) + 5, y: y(last.median * size) + 4, size: 10, fill: "#555")
                    canvas.right = Swift.max(canvas.right, x(size) + 5 + textWidth(subject, size: 10))
                }
            }
            canvas.y = top + height + 24
            for finding in findings where finding.series == curve.series {
                let fill = finding.superlinear ? "#c0392b" : (isBackendSubject(finding.subject) ? color(finding.subject) : "#555")
                let words = "\(finding.subject): \(finding.superlinear ? "SUPERLINEAR" : "linear"), \(finding.detail)"
                canvas.body += text(words, x: left, y: canvas.y, size: 10, bold: finding.superlinear, fill: fill)
                canvas.right = Swift.max(canvas.right, left + textWidth(words, size: 10))
                canvas.y += 14
            }
            canvas.right = Swift.max(canvas.right, left + plotWidth)
        }
    }

    /// Whether `subject` is one of the report's backends (else a raw baseline).
    func isBackendSubject(_ subject: String) -> Bool {
        report.results.contains { $0.subject == subject && $0.isBackend }
    }
}
