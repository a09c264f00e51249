import Foundation
import Synchronization

/// A deliberate slowdown, to check that `bench compare` sees one: with `BENCH_SLOWDOWN=gcd:20`
/// every chain link of the `gcd` backend also spins for 20% of the per-link time its warm-up
/// measured. A test hook, not a user option: it is not in the usage text, and a report made
/// with it says so in each slowed figure's note.
struct Slowdown: Sendable, Equatable {
    static let variable = "BENCH_SLOWDOWN"

    let backend: String
    /// Extra time per link, as a fraction of the link's own cost (0.2 for 20%).
    let fraction: Double

    /// `BACKEND:PERCENT`, e.g. `gcd:20`; `nil` for anything else.
    init?(_ text: String?) {
        guard let parts = text?.split(separator: ":"), parts.count == 2,
            let percent = Double(parts[1]), percent > 0, percent <= 1000
        else { return nil }
        backend = String(parts[0])
        fraction = percent / 100
    }
}

extension Slowdown {
    /// The iterations of `countedLink`'s work per link, set by `--instructions` in each probe
    /// it runs for a slowed subject: the parent calibrates them by counting (see
    /// `InstructionCounts.Probe.slowed`), so that the link grows by the fraction asked of its
    /// own count. Not for users.
    static let iterationsVariable = "BENCH_SLOWDOWN_ITERATIONS"

    /// Instructions of a link's own cost that a slowdown's fraction refers to when a probe runs
    /// with no calibrated iterations (by hand, not through `--instructions`).
    static let nominalInstructionsPerLink = 1_500.0

    /// The iterations a probe's slowed link runs: the calibrated ones from the environment, else
    /// an estimate from `fraction` of `nominalInstructionsPerLink` at about ten per iteration.
    static func countedIterations(_ fraction: Double) -> Int {
        if let text = ProcessInfo.processInfo.environment[iterationsVariable], let iterations = Int(text), iterations >= 0 {
            return iterations
        }
        return Int(fraction * nominalInstructionsPerLink / 10)
    }

    /// The link for the instruction counts: adds one after `iterations` steps of work (an
    /// opaque call each, which the optimizer cannot fold away). Deterministic, so `compare` of
    /// two `--instructions` runs sees it exactly, every time.
    static func countedLink(iterations: Int) -> ChainScenario.Link {
        .slowed(SlowedLink.Work(iterations: iterations))
    }
}

/// The work of a slowed chain link, read by a closure literal that captures nothing (see
/// `ChainScenario.extend`): installed before a chain is built, one chain at a time.
enum SlowedLink {
    /// Busy time (the timed chains) and steps of work (the instruction counts) per link.
    struct Work: Sendable, Equatable {
        var spinNanos: UInt64 = 0
        var iterations = 0
    }

    private static let spinNanos = Atomic<UInt64>(0)
    private static let iterations = Atomic<Int>(0)
    /// Where the steps' work ends up: an atomic store the optimizer must keep, and with it the
    /// loop that feeds it.
    private static let sink = Atomic<Int>(0)

    /// Makes `link`'s work the work of every slowed link from now on.
    static func install(_ link: ChainScenario.Link) {
        guard case .slowed(let work) = link else { return }
        spinNanos.store(work.spinNanos, ordering: .relaxed)
        iterations.store(work.iterations, ordering: .relaxed)
    }

    /// A slowed link: the installed work, then `value + 1`.
    static func step(_ value: Int) -> Int {
        let nanos = spinNanos.load(ordering: .relaxed)
        if nanos > 0 { spin(nanos: nanos) }
        var accumulator = value
        for index in 0..<iterations.load(ordering: .relaxed) { accumulator = opaqueStep(accumulator, index) }
        sink.store(accumulator, ordering: .relaxed)
        return value &+ 1
    }
}

/// One step of `SlowedLink`'s work, kept out of line so that the loop cannot be folded.
@inline(never)
func opaqueStep(_ accumulator: Int, _ index: Int) -> Int {
    accumulator &* 31 &+ index
}

/// Busy-waits for `nanos` nanoseconds on the monotonic clock.
@inline(never)
func spin(nanos: UInt64) {
    let end = monotonicNanos() &+ nanos
    while monotonicNanos() < end {}
}
