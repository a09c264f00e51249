import Testing

@testable import bench

@Suite struct CompareTests {
    @Test func identicalRunsReportNothing() {
        let comparison = Comparison(old: Fixture.chainReport(), new: Fixture.chainReport())
        #expect(comparison.changes.isEmpty)
        #expect(comparison.unchanged == 1)
        #expect(comparison.baselines == 1)
    }

    @Test func aWholeMachineSlowdownIsNotAChange() {
        // Baseline and backend both 1.5x slower: the ratio holds.
        let comparison = Comparison(old: Fixture.chainReport(), new: Fixture.chainReport(scale: 1.5))
        #expect(comparison.changes.isEmpty)
        #expect(comparison.text.contains("baselines (the yardstick, not tested) cost 1.5x"))
    }

    @Test func aTwentyPercentSlowdownIsWorse() {
        let comparison = Comparison(old: Fixture.chainReport(), new: Fixture.chainReport(gcdFactor: 1.2))
        #expect(comparison.worse.map(\.subject) == ["gcd"])
        #expect(comparison.better.isEmpty)
        #expect(comparison.text.contains("chain.completed-inline gcd: 20x -> 24x vs closure (1.2x worse"))
    }

    @Test func aFivePercentShiftIsBelowTheMinimumEffect() {
        let comparison = Comparison(old: Fixture.chainReport(), new: Fixture.chainReport(gcdFactor: 0.95))
        #expect(comparison.changes.isEmpty)
    }

    @Test func aShiftWithinOneRunsOwnSpreadIsNotAChange() {
        // Measured on this machine between two quiet default runs: chain.pending-inline actors,
        // 261..413 ns/link in one run (a 48% spread), 251..272 in the next. The rank test
        // separates them, but the shift (0.8x) is smaller than the first run's own spread.
        let noisy = [412.7, 314.6, 260.9, 334.8, 275.6]
        let steady = [255.5, 251.2, 253.2, 252.7, 271.9]
        func run(_ actors: [Double]) -> Report {
            var results = [
                Fixture.figure("chain.pending-inline@1M", "closure", [9.7, 9.8, 9.7, 9.8, 9.7]),
                Fixture.figure("chain.pending-inline@1M", "actors", actors, baseline: "closure")
            ]
            attachRatios(&results)
            return Fixture.report(results)
        }
        #expect(MannWhitney(noisy, steady).p < Comparison.alpha)
        let comparison = Comparison(old: run(noisy), new: run(steady))
        #expect(comparison.changes.isEmpty)
        #expect(comparison.unchanged == 1)
        // The same runs, the second one twice as costly: beyond any spread, reported.
        #expect(Comparison(old: run(noisy), new: run(steady.map { $0 * 2 })).worse.map(\.subject) == ["actors"])
    }

    @Test func tooFewRepetitionsAreNotTested() {
        var old = Fixture.chainReport()
        old.results[1].values = [400, 410]
        let comparison = Comparison(old: old, new: Fixture.chainReport(gcdFactor: 2))
        #expect(comparison.changes.isEmpty)
        #expect(comparison.untestable == ["chain.completed-inline gcd"])
    }

    @Test func differentSizesStillMatchAndSaySo() {
        let comparison = Comparison(old: Fixture.chainReport(), new: Fixture.chainReport(gcdCase: "chain.completed-inline@250k"))
        #expect(comparison.resized == 1)
        #expect(comparison.unmatched == 0)
        #expect(comparison.text.contains("1 figures were measured at different sizes"))
    }

    @Test func printsMachinesAndWarnsAboutLoad() {
        let busy = Fixture.machine(cores: 2, cpu: "Other CPU", load: 6.7)
        let text = Comparison(old: Fixture.chainReport(), new: Fixture.chainReport(machine: busy)).text
        #expect(text.contains("load average 0.5 at start"))
        #expect(text.contains("warning: the new run's load average (6.7) exceeded its 2 cores"))
        #expect(!text.contains("warning: the old run"))
        #expect(text.contains("note: the runs come from different machines (cpu Test CPU vs Other CPU)"))
    }

    @Test func exactFiguresCompareExactlyWithinTheirTolerance() {
        func counts(_ gcd: Double) -> [Figure] {
            var closure = Fixture.figure(
                "instructions.chain-pending-inline@2k-4k", "closure", [75],
                unit: "instr/link", scenario: "instructions")
            var backend = Fixture.figure(
                "instructions.chain-pending-inline@2k-4k", "gcd", [gcd], baseline: "closure",
                unit: "instr/link", scenario: "instructions")
            closure.tolerance = 0.001
            backend.tolerance = 0.001
            return [closure, backend]
        }
        let old = Fixture.chainReport(extra: counts(6156))
        #expect(Comparison(old: old, new: Fixture.chainReport(extra: counts(6157))).changes.isEmpty)
        let worse = Comparison(old: old, new: Fixture.chainReport(extra: counts(6200)))
        #expect(worse.worse.map(\.text) == ["instructions.chain-pending-inline gcd: 6156 -> 6200 instr/link (exact)"])
    }

    @Test func depthsCutByTheTimeLimitAreUndecided() {
        func depth(_ links: Double, note: String?) -> Figure {
            var m = Fixture.figure(
                "stack.deepest-inline@512KiB", "gcd", [links], baseline: "closure", unit: "links",
                better: .higher, scenario: "stack")
            m.note = note
            return m
        }
        let old = Fixture.chainReport(extra: [depth(1_000_000, note: nil)])
        let cut = Fixture.chainReport(extra: [depth(100_000, note: "1000000 links \(StackScenario.timeoutMarker) 30 s")])
        let failed = Fixture.chainReport(extra: [depth(5_000, note: "1000000 links: killed by signal 11")])
        #expect(Comparison(old: old, new: cut).undecided == ["stack.deepest-inline gcd"])
        #expect(Comparison(old: old, new: failed).worse.count == 1)
    }

    @Test func aMoveWithinTheBaselinesOwnModesIsNotAChange() {
        // Measured: the serial hop on a loaded machine. In the new run the raw Dispatch hop took
        // 2.4..27 us across its five processes (two modes), and gcd's five processes all landed
        // in the slow one, as the run before had all landed in the fast one.
        func report(dispatch: [Double], gcd: [Double]) -> Report {
            var results = [
                Fixture.figure("hop.serial@30k", "dispatch", dispatch, unit: "us", scenario: "hop"),
                Fixture.figure("hop.serial@30k", "gcd", gcd, baseline: "dispatch", unit: "us", scenario: "hop")
            ]
            attachRatios(&results)
            return Fixture.report(results)
        }
        let old = report(dispatch: [2.09, 2.80, 2.00, 2.03, 1.99], gcd: [2.82, 2.80, 2.83, 2.81, 2.84])
        let bimodal = report(dispatch: [3.78, 23.8, 26.8, 3.75, 2.37], gcd: [27.4, 32.2, 25.7, 17.9, 23.2])
        #expect(Comparison(old: old, new: bimodal).changes.isEmpty)
        #expect(Comparison.innerNoiseOf([3.78, 23.8, 26.8, 3.75, 2.37]) > 5)
        // The same move against a baseline that stayed in one mode is a change; one preempted
        // baseline repetition is not a mode.
        let steady = report(dispatch: [2.1, 2.0, 9.5, 2.05, 1.98], gcd: [27.4, 32.2, 25.7, 17.9, 23.2])
        #expect(Comparison(old: old, new: steady).worse.map(\.subject) == ["gcd"])
        // Measured too: the baseline's median jumped between modes (24 -> 6.3 us) and took the
        // ratio with it (5x), while the backend's own figure moved 25%: smaller than the
        // baseline's swing, so the figure's move says nothing either.
        let calm = report(dispatch: [24.5, 24.1, 24.8, 25.8, 26.3], gcd: [1.23, 1.32, 1.13, 1.01, 1.2])
        let swung = report(dispatch: [6.27, 31.4, 28.7, 3.27, 3.19], gcd: [1.46, 1.48, 1.57, 1.56, 1.6])
        #expect(Comparison(old: calm, new: swung).changes.isEmpty)
    }

    @Test func aSwingOfTheBaselineAloneIsNotAChange() {
        let jitter = [1.0, 1.03, 0.98, 1.05, 0.99]
        func report(dispatch: Double, gcd: Double) -> Report {
            var results = [
                Fixture.figure("chain.completed-default@1M", "dispatch", jitter.map { dispatch * $0 }),
                Fixture.figure("chain.completed-default@1M", "gcd", jitter.map { gcd * $0 }, baseline: "dispatch")
            ]
            attachRatios(&results)
            return Fixture.report(results)
        }
        let old = report(dispatch: 500, gcd: 1500)
        // Only the baseline moved: the ratio doubles, the backend's own figure does not.
        #expect(Comparison(old: old, new: report(dispatch: 250, gcd: 1500)).changes.isEmpty)
        // The backend moved: both agree.
        #expect(Comparison(old: old, new: report(dispatch: 500, gcd: 1800)).worse.map(\.subject) == ["gcd"])
    }
}

@Suite struct SizeFitTests {
    let plan = Plan(quick: false, cores: 2, budget: 1.0)

    @Test func aCaseNearItsBudgetKeepsItsNominalSize() {
        // 5 repetitions of 250k links at 1.4 or 2.2 us/link: 1.75 or 2.75 budgets. Both runs must
        // measure the same experiment, so neither is cut.
        for secondsPerLink in [1.4e-6, 2.2e-6] {
            let fit = plan.fit(nominal: 250_000, floor: 6_250, repetitions: 5, secondsPerItem: secondsPerLink)
            #expect(fit.size == 250_000)
            #expect(fit.repetitions == 5)
        }
    }

    @Test func aCaseFarBeyondItsBudgetIsCutToFitIt() {
        // 20 us/link: 25 budgets at the nominal size; cut until 5 repetitions fit one budget.
        let fit = plan.fit(nominal: 250_000, floor: 6_250, repetitions: 5, secondsPerItem: 20e-6)
        #expect(fit.size == 7_812)
        #expect(fit.repetitions == 5)
        // At the floor and still over: fewer repetitions, never below 2.
        let slowest = plan.fit(nominal: 250_000, floor: 6_250, repetitions: 5, secondsPerItem: 1e-3)
        #expect(slowest.size == 6_250)
        #expect(slowest.repetitions == 2)
    }
}
