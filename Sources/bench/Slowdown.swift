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
    /// Instructions of a link's own cost that a slowdown's fraction refers to under
    /// `--instructions`, where time means nothing: about a link of today's backends.
    static let nominalInstructionsPerLink = 5_000.0

    /// A link body for the instruction counts: adds one after a fixed amount of work, about
    /// `fraction` of `nominalInstructionsPerLink` instructions (an opaque call of about ten per
    /// iteration, which the optimizer cannot fold away). Deterministic, so `compare` of two
    /// `--instructions` runs sees it exactly, every time.
    static func countedLink(_ fraction: Double) -> ChainScenario.Body {
        let iterations = Int(fraction * nominalInstructionsPerLink / 10)
        return { value in
            var accumulator = value
            for index in 0..<iterations { accumulator = opaqueStep(accumulator, index) }
            // An atomic store the optimizer must keep, and with it the loop that feeds it.
            slowdownSink.store(accumulator, ordering: .relaxed)
            return value &+ 1
        }
    }
}

/// Where `countedLink`'s work ends up.
private let slowdownSink = Atomic<Int>(0)

/// One step of `countedLink`'s work, kept out of line so that the loop cannot be folded.
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
