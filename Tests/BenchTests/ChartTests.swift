import Foundation
import Testing

@testable import bench

@Suite struct ChartTests {
    func sampleReport() -> Report {
        let jitter = [1.0, 1.1, 0.9, 1.05]
        var results = [
            Fixture.figure("chain.completed-inline@1M", "closure", jitter.map { 20 * $0 }),
            Fixture.figure("chain.completed-inline@1M", "gcd", jitter.map { 400 * $0 }, baseline: "closure"),
            Fixture.figure("chain.completed-inline@100k", "threads", jitter.map { 450 * $0 }, baseline: "closure"),
            Fixture.figure(
                "stack.deepest-inline@512KiB", "closure", [5_000], unit: "links", better: .higher,
                scenario: "stack"),
            Fixture.figure(
                "stack.deepest-inline@512KiB", "gcd", [1_000_000], baseline: "closure", unit: "links",
                better: .higher, scenario: "stack"),
            Fixture.figure(
                "memory.retained-after@100k", "gcd", [-46_213], baseline: "dispatch", unit: "bytes",
                scenario: "memory"),
            Fixture.figure("memory.retained-after@100k", "dispatch", [144], unit: "bytes", scenario: "memory"),
            Fixture.figure(
                "stack.bytes-per-link-inline", "gcd", [0], baseline: "closure", unit: "bytes/link",
                scenario: "stack")
        ]
        results[5].note = "back at baseline: -0.46 bytes/task (limit 4)"
        attachRatios(&results)
        return Fixture.report(results)
    }

    @Test func hasALegendOneColourPerBackendAndTheMedians() {
        let chart = SVGChart(sampleReport())
        let svg = chart.render()
        #expect(svg.contains(">gcd</text>") && svg.contains(">threads</text>") && svg.contains(">baseline</text>"))
        #expect(chart.color("gcd") != chart.color("threads"))
        #expect(svg.contains("fill=\"\(chart.color("gcd"))\"") && svg.contains("fill=\"\(chart.color("threads"))\""))
        #expect(svg.contains("20x vs closure  (410 ns/link)"))
    }

    @Test func depthsAgainstTheGoalAndMemoryAsAVerdict() {
        let svg = renderSVG(sampleReport())
        #expect(svg.contains("1M links: goal reached"))
        #expect(svg.contains("5000 links: overflowed deeper"))
        #expect(svg.contains("yes: back at baseline"))
        #expect(!svg.contains("-46.21k"))  // no negative byte count as a bar or figure
        #expect(!svg.contains("no ratio"))
        #expect(!svg.contains("0.01x vs closure"))
    }

    @Test func theCanvasHoldsTheWidestText() throws {
        let chart = SVGChart(sampleReport())
        let svg = chart.render()
        let width = try #require(svg.split(separator: "\"").dropFirst(3).first.flatMap { Double($0) })
        let texts = svg.split(separator: "\n").filter { $0.hasPrefix("<text x=\"") && !$0.contains("text-anchor") }
        #expect(!texts.isEmpty)
        for line in texts {
            let x = try #require(Double(line.split(separator: "\"")[1]))
            let size = try #require(Double(line.split(separator: "\"")[5]))
            let content = line.split(separator: ">", maxSplits: 1)[1].dropLast("</text>".count)
            #expect(x + chart.textWidth(String(content), size: size) <= width, "\(content) is clipped")
        }
    }

    @Test func ticksDoNotCollide() {
        let chart = SVGChart(sampleReport())
        let span = log10(chart.high) - log10(chart.low)
        func x(_ value: Double) -> Double { 100 + (log10(value) - log10(chart.low)) / span * chart.plotWidth }
        let ticks = chart.tickValues(x: x)
        #expect(ticks.count >= 3)
        for i in 1..<ticks.count {
            let left = chart.textWidth(chart.tickLabel(ticks[i - 1]), size: 10)
            let right = chart.textWidth(chart.tickLabel(ticks[i]), size: 10)
            #expect(x(ticks[i]) - x(ticks[i - 1]) > (left + right) / 2, "\(ticks[i - 1]) and \(ticks[i]) overlap")
        }
    }
}
