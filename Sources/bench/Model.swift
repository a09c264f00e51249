/// One figure of the report: a case of a scenario measured for one subject (a backend or a
/// baseline), with its spread over repetitions and its ratio to the matching baseline.
/// The JSON schema (docs/BENCHMARKS.md) is exactly this type and `Report`.
struct Figure: Codable, Sendable {
    /// Scenario name: hop, chain, fanout, contention, await, stack, memory.
    var scenario: String
    /// Case name: scenario, variant and the size measured, e.g. `chain.pending-inline@1M`.
    var caseName: String
    /// `gcd`, `threads`, ... for a backend; `dispatch`, `swift`, `pthreads`, `closure` for a baseline.
    var subject: String
    /// `backend` or `baseline`.
    var kind: String
    /// Unit of `median`, `min` and `max`: `ns/link`, `us`, `tasks/s`, `ops/s`, `links`, ...
    var unit: String
    /// `lower` or `higher`: which direction is better.
    var better: String
    /// Median over repetitions, and the smallest and largest repetition.
    var median: Double
    var min: Double
    var max: Double
    /// Number of timed repetitions (warm-up excluded).
    var repetitions: Int
    /// Each timed repetition's figure, in `unit` (absent in reports from before it was added):
    /// what `bench compare` tests for a change.
    var values: [Double]?
    /// Items per repetition (links, tasks, round trips...) when the time budget cut the case
    /// below its nominal size (the case name then carries this size, and the note the nominal
    /// one); `nil` when it ran at its nominal size.
    var size: Int?
    /// Scaling figures only: the work one round measured (links, bodies, waiters, continuations,
    /// handlers), which the case name ends with (`scaling.waiters/64`); `nil` elsewhere.
    var workSize: Int?
    /// Latency samples pooled over all repetitions (hop only), and their percentiles.
    var samples: Int?
    var percentiles: Percentiles?
    /// Subject of the baseline this figure is compared with, the cost ratio (above 1: costlier
    /// than the baseline), and the ratio's range from the two spreads.
    var baseline: String?
    var ratio: Double?
    var ratioMin: Double?
    var ratioMax: Double?
    /// Anything the number needs to be read right (a failure, a fallback, a verdict).
    var note: String?
    /// For an exact figure: the relative difference `bench compare` still calls equal
    /// (instruction counts vary a little where other threads run); `nil`: must be equal.
    var tolerance: Double?

    var isBackend: Bool { kind == "backend" }
    /// The case name without its size: `chain.pending-inline@100k` -> `chain.pending-inline`.
    /// Unique within a run; what ratios and `bench compare` match figures by.
    var variant: Substring { caseName.prefix { $0 != "@" } }
    /// A scaling figure's curve: its case name without the size, `scaling.waiters/64` ->
    /// `scaling.waiters`.
    var series: Substring { caseName.prefix { $0 != "/" } }
    var lowerIsBetter: Bool { better == "lower" }
}

/// Latency percentiles, in the measurement's unit.
struct Percentiles: Codable, Sendable {
    var p50: Double
    var p90: Double
    var p99: Double
    var max: Double
}

/// A benchmark aim of the project and whether this run met it.
struct AimResult: Codable, Sendable {
    var aim: String
    var subject: String
    /// `true` met, `false` not met, `nil` not measured in this run.
    var met: Bool?
    var detail: String
}

/// The whole run: what `--format json` prints and what `bench compare` reads.
struct Report: Codable, Sendable {
    var schema: String
    var date: String
    var machine: MachineInfo
    var quick: Bool
    var backends: [String]
    var scenarios: [String]
    var durationSeconds: Double
    /// 1-minute load average when the run ended (`machine.loadAverage` is at its start).
    var loadAverageEnd: Double?
    /// What `--instructions` measured with (absent without it): e.g. `valgrind-3.22.0`.
    var instructionTool: String?
    var results: [Figure]
    var aims: [AimResult]
    /// The scaling scenario's curves, each judged linear or superlinear (absent in reports from
    /// before it, and without the scenario).
    var scaling: [ScalingFinding]? = nil
    /// Each timed backend figure's ratio to its baseline, round by round, judged stable or not
    /// (absent in reports from before it, and where no figure pairs up).
    var ratioStability: [RatioStability]? = nil
}

extension Figure {
    /// A figure from per-repetition values (at least one).
    init(
        scenario: String, caseName: String, subject: String, kind: Kind, unit: String,
        better: Direction, values: [Double], baseline: String? = nil, note: String? = nil
    ) {
        let s = Spread(values)
        self.init(
            scenario: scenario, caseName: caseName, subject: subject, kind: kind.rawValue, unit: unit,
            better: better.rawValue, median: s.median, min: s.min, max: s.max, repetitions: values.count,
            values: values, size: nil, workSize: nil, samples: nil, percentiles: nil, baseline: baseline,
            ratio: nil, ratioMin: nil, ratioMax: nil, note: note, tolerance: nil
        )
    }

    enum Kind: String { case backend, baseline }
    enum Direction: String { case lower, higher }
}

/// Fills in each backend figure's ratio to the baseline figure of the same case it names.
func attachRatios(_ results: inout [Figure]) {
    var baselines: [String: Figure] = [:]
    for m in results where !m.isBackend { baselines[m.variant + "|" + m.subject] = m }
    for index in results.indices {
        let m = results[index]
        guard m.isBackend, let name = m.baseline, let b = baselines[m.variant + "|" + name] else { continue }
        let (ratio, low, high) = costRatio(m, to: b)
        results[index].ratio = ratio
        results[index].ratioMin = low
        results[index].ratioMax = high
    }
}

/// Cost ratio of `m` to `b`: above 1 means `m` costs more (slower, bigger, less throughput).
func costRatio(_ m: Figure, to b: Figure) -> (Double?, Double?, Double?) {
    func div(_ x: Double, _ y: Double) -> Double? { y > 0 && x >= 0 && x.isFinite ? x / y : nil }
    if m.lowerIsBetter {
        return (div(m.median, b.median), div(m.min, b.max), div(m.max, b.min))
    }
    return (div(b.median, m.median), div(b.min, m.max), div(b.max, m.min))
}
