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
              let percent = Double(parts[1]), percent > 0, percent <= 1000 else { return nil }
        backend = String(parts[0])
        fraction = percent / 100
    }
}

/// Busy-waits for `nanos` nanoseconds on the monotonic clock.
@inline(never)
func spin(nanos: UInt64) {
    let end = monotonicNanos() &+ nanos
    while monotonicNanos() < end {}
}
