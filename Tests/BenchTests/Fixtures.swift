@testable import bench

/// Small hand-made reports for the compare, format and chart tests.
enum Fixture {
    static func machine(cores: Int = 2, cpu: String = "Test CPU", load: Double = 0.5) -> MachineInfo {
        MachineInfo(cores: cores, toolchain: "Swift 6", os: "Linux", cpu: cpu, loadAverage: load)
    }

    static func figure(
        _ caseName: String, _ subject: String, _ values: [Double], baseline: String? = nil,
        unit: String = "ns/link", better: Figure.Direction = .lower,
        scenario: String = "chain"
    ) -> Figure {
        Figure(
            scenario: scenario, caseName: caseName, subject: subject,
            kind: baseline == nil ? .baseline : .backend, unit: unit, better: better, values: values,
            baseline: baseline)
    }

    /// One chain case: a closure baseline and a gcd figure, each scaled by `scale`, gcd's also by
    /// `gcdFactor`; per-repetition jitter is the same in both reports.
    static func chainReport(
        scale: Double = 1, gcdFactor: Double = 1, machine: MachineInfo = machine(),
        gcdCase: String = "chain.completed-inline@1M", extra: [Figure] = []
    ) -> Report {
        let jitter = [1.0, 1.03, 0.98, 1.05, 0.99]
        var results =
            [
                figure("chain.completed-inline@1M", "closure", jitter.map { 20 * $0 * scale }),
                figure(gcdCase, "gcd", jitter.map { 400 * $0 * scale * gcdFactor }, baseline: "closure")
            ] + extra
        attachRatios(&results)
        return report(results, machine: machine)
    }

    static func report(_ results: [Figure], machine: MachineInfo = machine(), quick: Bool = false) -> Report {
        Report(
            schema: "bench-report/2", date: "2026-01-01T00:00:00Z", machine: machine, quick: quick,
            backends: ["gcd", "threads"], scenarios: Array(Set(results.map(\.scenario))).sorted(),
            durationSeconds: 1, loadAverageEnd: machine.loadAverage, instructionTool: nil, results: results,
            aims: [])
    }
}
