import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The monotonic clock, in nanoseconds.
@inline(__always)
func monotonicNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

/// Processor time this process has used so far, every thread's, user and system, in
/// nanoseconds: unlike the monotonic clock, it does not count the time other processes run.
func processCPUNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

/// Processor seconds (`processCPUNanos`) `body` took.
func cpuTimed(_ body: () -> Void) -> Double {
    let start = processCPUNanos()
    body()
    return Double(processCPUNanos() &- start) / 1e9
}

/// Seconds `body` took on the monotonic clock.
@inline(__always)
func timed(_ body: () -> Void) -> Double {
    let start = monotonicNanos()
    body()
    return Double(monotonicNanos() &- start) / 1e9
}

/// Median, min and max of a non-empty list of values.
struct Spread {
    var median: Double
    var min: Double
    var max: Double

    init(_ values: [Double]) {
        let sorted = values.sorted()
        if sorted.isEmpty {
            median = .nan
            min = .nan
            max = .nan
            return
        }
        let mid = sorted.count / 2
        median = sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
        min = sorted[0]
        max = sorted[sorted.count - 1]
    }
}

/// The nearest-rank percentile `p` (0...100) of an ascending list.
func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
    return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1]
}

/// How hard to measure: repetitions and sizes differ between a default and a `--quick` run.
struct Plan: Sendable {
    let quick: Bool
    /// Online processors: thread counts of the raw baselines and of the contention scenario.
    let cores: Int
    /// Seconds one subject's case may take (timed repetitions together), so that a default run
    /// stays near 100 s and `--quick` near 15 s whatever the backends cost (see `sizeTolerance`).
    let budget: Double
    /// A slowdown injected on purpose (`BENCH_SLOWDOWN`), for testing `bench compare`.
    var slowdown: Slowdown?

    /// Whether the timed cases take each repetition in a child process of its own (see
    /// `Isolated`): in a default run, not with `--quick`, which keeps them in process for speed.
    var isolates: Bool { !quick }
    /// How an isolated case takes its repetitions, for progress lines.
    var isolatedRounds: String { isolates ? "in rounds, a child process per repetition" : "in rounds" }

    /// Repetitions a figure needs for `bench compare`'s test to have the power to call a change
    /// significant: 4 against 4 reach two-sided p < 0.05 only when the runs do not overlap at
    /// all (p = 0.029); 5 against 5 still do with two pairs out of order (p = 0.032).
    var testableRepetitions: Int { 5 }

    /// Rounds of every timed case (`--rounds`, at least `testableRepetitions`): more rounds
    /// narrow the repeat verdict's interval of a ratio's median (`RepeatVerdict`).
    var rounds = Plan.defaultRounds
    /// Rounds without `--rounds`: the testable repetitions.
    static let defaultRounds = 5

    /// How far past the budget a case's testable repetitions may run at the nominal size before
    /// the size is cut. The size is part of what is measured (a chain of 125k links is not the
    /// same experiment as one of 250k), so it must come out the same in two runs of one binary:
    /// a cut decided right at the budget flipped with the warm-up's noise between back-to-back
    /// runs, and `compare` then set two different experiments side by side. Nominal sizes are
    /// chosen to fit the budget on a 2-core machine; only a backend several times slower than
    /// the budget allows (a slow or broken third-party backend) gets cut.
    static let sizeTolerance = 8.0

    /// Repetitions and size for a case whose one item was measured to take `secondsPerItem`:
    /// first fewer repetitions, down to `testableRepetitions`; then, if the testable repetitions
    /// at the nominal size would take more than `sizeTolerance` budgets, a size halved (down to
    /// `floor`) until they fit the budget; only then fewer repetitions again, down to 2 (a
    /// spread, but no test).
    func fit(nominal: Int, floor: Int, repetitions: Int, secondsPerItem: Double) -> (size: Int, repetitions: Int) {
        var reps = repetitions
        var n = nominal
        func cost() -> Double { secondsPerItem * Double(n) * Double(reps) }
        let testable = Swift.min(repetitions, testableRepetitions)
        while reps > testable && cost() > budget { reps -= 1 }
        if cost() > budget * Plan.sizeTolerance {
            while n > floor && cost() > budget { n = Swift.max(floor, n / 2) }
            while reps > 2 && cost() > budget { reps -= 1 }
        }
        return (n, reps)
    }

    /// Timed repetitions (after one warm-up).
    func repetitions(_ normal: Int, quick short: Int) -> Int { quick ? short : normal }
    func size(_ normal: Int, quick short: Int) -> Int { quick ? short : normal }

    /// Runs `body` once to warm up, then `count` times; returns what each timed run returned.
    func repeated(_ count: Int, warmup: Bool = true, _ body: () -> Double) -> [Double] {
        if warmup { _ = body() }
        return (0..<count).map { _ in body() }
    }
}

/// A size as a case-name suffix: 1000000 -> 1M, 100000 -> 100k, 125000 -> 125k, 62500 -> 62500.
func sizeLabel(_ n: Int) -> String {
    if n >= 1_000_000, n % 1_000_000 == 0 { return "\(n / 1_000_000)M" }
    if n >= 1_000, n % 1_000 == 0 { return "\(n / 1_000)k" }
    return "\(n)"
}

/// `x` rounded to `digits` significant digits, e.g. 1.9380000000000002 -> 1.938.
func roundedSignificant(_ x: Double, _ digits: Int = 4) -> Double {
    guard x.isFinite, x != 0 else { return x }
    let scale = pow(10, Double(digits) - (log10(abs(x))).rounded(.down) - 1)
    return (x * scale).rounded() / scale
}

/// `x` to `digits` significant digits in plain decimal notation, without exponent, float noise
/// or trailing zeros: 1.9380000000000002 -> "1.938", 2283412.7 -> "2283000", 128.0 -> "128".
func plainSignificant(_ x: Double, _ digits: Int = 4) -> String {
    guard x.isFinite else { return "" }
    let r = roundedSignificant(x, digits)
    if r == 0 { return "0" }
    let decimals = Swift.max(0, digits - 1 - Int((log10(abs(r))).rounded(.down)))
    var text = String(format: "%.\(decimals)f", r)
    if text.contains(".") {
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
    }
    return text
}
