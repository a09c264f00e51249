import Testing

@testable import bench

/// The scaling scenario's verdicts: a curve whose per-unit cost grows more than 2x beyond the
/// spread is superlinear, a finding in every output (issue 30, item 4).
@Suite struct ScalingFindingTests {
    /// One scaling point: `perUnit` per repetition at `size`.
    static func point(
        _ series: String, _ subject: String, _ size: Int, _ perUnit: [Double], baseline: String? = nil
    ) -> Figure {
        var m = Fixture.figure(
            "scaling.\(series)/\(sizeLabel(size))", subject, perUnit, baseline: baseline, unit: "cpu-ns/link",
            scenario: "scaling")
        m.workSize = size
        return m
    }

    /// A chain curve from 1k to 1M links: the closure baseline flat at 10, gcd at `gcd` per size.
    static func report(gcd: [Double], spread: Double = 0.02) -> Report {
        let sizes = [1_000, 10_000, 100_000, 1_000_000]
        var results: [Figure] = []
        for (size, value) in zip(sizes, gcd) {
            results.append(point("chain", "closure", size, [10, 10.1, 9.9]))
            results.append(point("chain", "gcd", size, [value, value * (1 + spread), value * (1 - spread)], baseline: "closure"))
        }
        attachRatios(&results)
        var report = Fixture.report(results)
        report.judgeScaling()
        return report
    }

    @Test func aFlatPerUnitCostIsLinear() throws {
        let findings = try #require(Self.report(gcd: [100, 98, 103, 110]).scaling)
        #expect(findings.map(\.subject) == ["closure", "gcd"])
        #expect(findings.allSatisfy { !$0.superlinear })
        let gcd = try #require(findings.last)
        #expect(gcd.cheapestSize == 10_000 && gcd.largestSize == 1_000_000)
        #expect(abs(gcd.growth - 110 / 98) < 1e-9)
        #expect(gcd.detail.contains("baseline closure: 1x"))
    }

    @Test func aPerUnitCostThatTriplesIsSuperlinearAndMarkedInTheNote() throws {
        let report = Self.report(gcd: [100, 120, 180, 300])
        let gcd = try #require(report.scaling?.last)
        #expect(gcd.superlinear)
        #expect(abs(gcd.growth - 3) < 1e-9)
        let largest = try #require(report.results.first { $0.subject == "gcd" && $0.workSize == 1_000_000 })
        #expect(largest.note?.hasPrefix("SUPERLINEAR: 100 cpu-ns/link at 1k links (cheapest), 300 at 1M: 3x") ?? false)
        // Every format shows it: the table's and markdown's verdicts, the CSV's note, the chart.
        #expect(render(report, as: .table).contains("SUPERLINEAR  scaling.chain gcd"))
        #expect(render(report, as: .markdown).contains("| `scaling.chain` | gcd | **superlinear** |"))
        #expect(render(report, as: .csv).contains("SUPERLINEAR: 100 cpu-ns/link"))
        #expect(renderSVG(report).contains("gcd: SUPERLINEAR"))
        // Judged again (`bench show`): the note is not marked twice.
        var again = report
        again.judgeScaling()
        #expect(again.results.filter { $0.note?.contains("SUPERLINEAR") ?? false }.count == 1)
        #expect(again.results.first { $0.subject == "gcd" && $0.workSize == 1_000_000 }?.note == largest.note)
    }

    @Test func growthWithinTheNoiseIsNotAFinding() throws {
        // 2.4x in the medians, but the repetitions spread so wide that the largest size's fastest
        // is within 2x of the cheapest size's slowest.
        let gcd = try #require(Self.report(gcd: [100, 110, 150, 240], spread: 0.15).scaling?.last)
        #expect(gcd.growth > ScalingFinding.limit)
        #expect(gcd.growthLow <= ScalingFinding.limit)
        #expect(!gcd.superlinear)
    }

    @Test func aRiseAfterACheaperMiddleSizeIsMeasuredFromTheCheapest() throws {
        // The smallest size carries a round's fixed cost: 400 per unit. From the cheapest (100 at
        // 10k) to 1M the cost rose 2.5x: superlinear, though below the smallest size's.
        let gcd = try #require(Self.report(gcd: [400, 100, 150, 250]).scaling?.last)
        #expect(gcd.cheapestSize == 10_000)
        #expect(gcd.superlinear)
    }

    @Test func reportsWithoutScalingHaveNoVerdicts() {
        var report = Fixture.chainReport()
        report.judgeScaling()
        #expect(report.scaling == nil)
        #expect(!render(report, as: .table).contains("== scaling"))
    }

    @Test func theChartPlotsEachCurveLogLogWithALinearLine() {
        let svg = renderSVG(Self.report(gcd: [100, 98, 103, 110]))
        #expect(svg.contains("scaling.chain: processor time, all threads, against links (log-log; dotted: linear growth)"))
        #expect(svg.components(separatedBy: "<polyline").count - 1 == 2)  // closure and gcd
        #expect(svg.contains("stroke-dasharray=\"2,3\""))  // the linear line
        // The scaling points are plotted, not drawn as ratio bars.
        #expect(!svg.contains("scaling.chain/1k  gcd"))
    }

    @Test func pluralsOfTheUnits() {
        #expect(
            ["link", "body", "waiter", "continuation", "handler"].map(plural) == [
                "links", "bodies", "waiters", "continuations", "handlers"
            ])
    }
}

/// `bench compare` judges the scaling curves by their verdicts, not point by point.
@Suite struct ScalingCompareTests {
    @Test func aCurveTurningSuperlinearIsWorseAndItsPointsAreNotListed() {
        let linear = ScalingFindingTests.report(gcd: [100, 98, 103, 110])
        let superlinear = ScalingFindingTests.report(gcd: [100, 120, 180, 300])
        let comparison = Comparison(old: linear, new: superlinear)
        #expect(comparison.worse.map(\.subject) == ["gcd"])
        #expect(comparison.text.contains("scaling.chain gcd: linear -> SUPERLINEAR"))
        #expect(comparison.untestable.isEmpty)
        #expect(comparison.text.contains("scaling: 8 points judged by their curves' verdicts"))
        // Back again: better.
        #expect(Comparison(old: superlinear, new: linear).better.map(\.subject) == ["gcd"])
    }

    @Test func curvesThatKeepTheirVerdictAreNoChange() {
        let report = ScalingFindingTests.report(gcd: [100, 98, 103, 110])
        let comparison = Comparison(old: report, new: report)
        #expect(comparison.changes.isEmpty)
        #expect(comparison.scalingCurves == 2)  // closure and gcd
    }
}
