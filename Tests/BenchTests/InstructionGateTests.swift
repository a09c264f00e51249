import Testing

@testable import bench

/// `bench gate`: a per-link instruction count of a backend may grow by at most 2 % against the
/// committed baseline, and must not go missing (issue 30, item 5).
@Suite struct InstructionGateTests {
    static let pendingCase = "instructions.chain-pending-inline@2k-4k"
    static let completedCase = "instructions.chain-completed-inline@2k-4k"

    /// A report of instruction counts: the closure baseline, and gcd's two figures.
    static func counts(pending: Double = 1_000, completed: Double = 800, closure: Double = 30) -> Report {
        func count(_ caseName: String, _ subject: String, _ value: Double, baseline: String?) -> Figure {
            Fixture.figure(
                caseName, subject, [value], baseline: baseline, unit: InstructionGate.unit, scenario: "instructions")
        }
        return Fixture.report([
            count(pendingCase, "closure", closure, baseline: nil),
            count(pendingCase, "gcd", pending, baseline: "closure"),
            count(completedCase, "gcd", completed, baseline: "closure")
        ])
    }

    @Test func theSameCountsPass() {
        let gate = InstructionGate(baseline: Self.counts(), new: Self.counts())
        #expect(gate.passed)
        #expect(gate.lines.count == 2)  // the two backend figures; the closure loop is context
        #expect(gate.text.contains("bench gate: passed (2 figures)"))
    }

    @Test func growthUpToTheLimitPasses() {
        // +1.9 % and +2.0 %: not more than 2 %.
        let gate = InstructionGate(baseline: Self.counts(), new: Self.counts(pending: 1_019, completed: 816))
        #expect(gate.passed)
        #expect(gate.failures.isEmpty)
    }

    @Test func growthAboveTheLimitFailsNamingTheFigureAndItsGrowth() {
        let gate = InstructionGate(baseline: Self.counts(), new: Self.counts(pending: 1_021))
        #expect(!gate.passed)
        #expect(gate.failures.map(\.figure) == ["instructions.chain-pending-inline gcd"])
        #expect(gate.failures.first?.outcome == .grew)
        #expect(gate.text.contains("instructions.chain-pending-inline gcd: 1000 -> 1021 instr/link (+2.1%)"))
        #expect(gate.text.contains("bench gate: FAILED: 1 of 2 figures"))
        #expect(gate.text.contains(InstructionGate.refreshCommand))
    }

    @Test func theLimitIsAParameter() {
        let grown = Self.counts(pending: 1_040)
        #expect(!InstructionGate(baseline: Self.counts(), new: grown, maxGrowth: 2).passed)
        #expect(InstructionGate(baseline: Self.counts(), new: grown, maxGrowth: 5).passed)
    }

    @Test func anImprovementPassesAndAsksForARefresh() {
        let gate = InstructionGate(baseline: Self.counts(), new: Self.counts(pending: 700))
        #expect(gate.passed)
        #expect(gate.lines.first { $0.outcome == .improved }?.figure == "instructions.chain-pending-inline gcd")
        #expect(gate.text.contains("(-30.0%)"))
        #expect(gate.text.contains(InstructionGate.refreshCommand))
    }

    @Test func aFigureMissingFromTheNewReportFails() {
        var new = Self.counts()
        new.results.removeAll { $0.caseName == Self.completedCase }
        let gate = InstructionGate(baseline: Self.counts(), new: new)
        #expect(!gate.passed)
        #expect(gate.failures.map(\.figure) == ["instructions.chain-completed-inline gcd"])
        #expect(gate.failures.first?.outcome == .missing)
        #expect(gate.text.contains("instructions.chain-completed-inline gcd: missing from the new report"))
    }

    @Test func aFigureCallgrindFailedToMeasureFails() {
        // A failed count is NaN in the run and -1 once written as JSON: neither passes.
        for failed in [Double.nan, -1] {
            let gate = InstructionGate(baseline: Self.counts(), new: Self.counts(completed: failed))
            #expect(gate.failures.map(\.outcome) == [.missing])
        }
    }

    @Test func aRawBaselineIsContextNotGated() {
        // The closure loop grew 50 % (a toolchain change): printed, and the gate still passes.
        let gate = InstructionGate(baseline: Self.counts(), new: Self.counts(closure: 45))
        #expect(gate.passed)
        #expect(gate.text.contains("instructions.chain-pending-inline closure: 30 -> 45 instr/link (+50.0%)"))
    }

    @Test func aFigureThatVariesMoreThanTheLimitIsContextNotGated() {
        // A default-executor chain counts its pool's idle spinning: declared to vary by 10 %.
        func report(_ value: Double) -> Report {
            var r = Self.counts()
            var noisy = Fixture.figure(
                "instructions.chain-completed-default@2k-4k", "gcd", [value], baseline: "dispatch",
                unit: InstructionGate.unit, scenario: "instructions")
            noisy.tolerance = 0.10
            r.results.append(noisy)
            return r
        }
        let gate = InstructionGate(baseline: report(2_500), new: report(2_700))
        #expect(gate.passed)
        #expect(gate.lines.count == 2)
        #expect(gate.text.contains("instructions.chain-completed-default gcd: 2500 -> 2700 instr/link (+8.0%); varies by up to 10%"))
        // An exact figure's declared tolerance (0.5 %) is within the limit: gated as before.
        var old = Self.counts()
        old.results[1].tolerance = 0.005
        #expect(!InstructionGate(baseline: old, new: Self.counts(pending: 1_100)).passed)
    }

    @Test func aBaselineWithoutBackendCountsFails() {
        let empty = Fixture.report([])
        let gate = InstructionGate(baseline: empty, new: Self.counts())
        #expect(!gate.passed)
        #expect(gate.text.contains("the baseline holds no backend instruction count to gate"))
    }

    @Test func timedFiguresAreNotGated() {
        // A chain's ns/link doubling is for `bench compare`; the gate reads instruction counts only.
        var new = Self.counts()
        new.results.append(Fixture.figure("chain.pending-inline@100k", "gcd", [400], baseline: "closure"))
        var old = Self.counts()
        old.results.append(Fixture.figure("chain.pending-inline@100k", "gcd", [200], baseline: "closure"))
        #expect(InstructionGate(baseline: old, new: new).passed)
    }

    @Test func theCommandLineTakesTwoFilesAndAPercentage() throws {
        let parse = { (args: [String]) throws(UsageError) in try parseCommand(args, backends: ["gcd"], scenarios: ["chain"]) }
        #expect(try parse(["gate", "a.json", "b.json"]) == .gate(baseline: "a.json", new: "b.json", maxGrowth: 2))
        #expect(
            try parse(["gate", "a.json", "b.json", "--max-growth", "0.5"])
                == .gate(baseline: "a.json", new: "b.json", maxGrowth: 0.5))
        #expect(throws: UsageError.self) { try parse(["gate", "a.json"]) }
        #expect(throws: UsageError.self) { try parse(["gate", "a.json", "b.json", "--max-growth", "-1"]) }
        #expect(throws: UsageError.self) { try parse(["gate", "a.json", "b.json", "--max-growth"]) }
        #expect(throws: UsageError.self) { try parse(["gate", "a.json", "b.json", "--tolerance", "2"]) }
    }
}
