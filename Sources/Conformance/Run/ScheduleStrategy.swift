/// How a controlled run picks the next thing to run among the enabled ones.
public enum ScheduleStrategy: Sendable, Hashable, CustomStringConvertible {
    /// Uniformly at random at every scheduling point.
    case randomWalk
    /// Probabilistic concurrency testing (Burckhardt et al. 2010): every driver and job gets a
    /// random priority, the highest enabled one runs, and at `depth - 1` random points the one
    /// running drops below all others. Finds a bug of depth `depth` with a known probability.
    case pct(depth: Int)
    /// Another schedule of the same program: `base` drawing from the program's seed mixed with
    /// `number` (1 and up). A random walk on an instrumented backend explores
    /// `ScheduleStrategy.schedulesPerProgram` of them per program (`ProgramPipeline`); a failure's
    /// mode names the one that failed (`controlled-random@1`), so its replay line runs that
    /// schedule again.
    indirect case schedule(Int, of: ScheduleStrategy)

    /// How many schedules a random walk explores per program on an instrumented backend (its
    /// first, then `.schedule(1...)`, until one fails): a seated run costs a few milliseconds, and
    /// a race inside an executor (a push landing while every drainer or worker is between two
    /// critical sections) is one schedule in a few hundred of the generated programs'. PCT, whose
    /// draws aim at a bug's depth, runs one per program.
    public static let schedulesPerProgram = 2

    public var description: String {
        switch self {
        case .randomWalk: return "random"
        case .pct(let depth): return "pct\(depth)"
        case .schedule(let number, let base): return "\(base)@\(number)"
        }
    }

    /// The strategy without its schedule number.
    var base: ScheduleStrategy {
        if case .schedule(_, let base) = self { return base.base }
        return self
    }

    /// `random`, `pct` (depth 3) or `pct<d>`, each optionally followed by `@<n>` (schedule `n`).
    public init?(_ text: String) {
        let lower = text.lowercased()
        if let at = lower.lastIndex(of: "@") {
            guard let number = Int(lower[lower.index(after: at)...]), number >= 1,
                  let base = ScheduleStrategy(String(lower[..<at])), base.base == base else { return nil }
            self = .schedule(number, of: base)
            return
        }
        if lower == "random" || lower == "randomwalk" { self = .randomWalk; return }
        guard lower.hasPrefix("pct") else { return nil }
        let digits = lower.dropFirst(3)
        if digits.isEmpty { self = .pct(depth: 3); return }
        guard let depth = Int(digits), depth >= 1 else { return nil }
        self = .pct(depth: depth)
    }
}
