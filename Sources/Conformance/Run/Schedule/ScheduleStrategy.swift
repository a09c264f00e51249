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
    /// Bounded-exhaustive (CHESS's context bounding, loom's preemption bound): every schedule of
    /// the program with at most `preemptions` preemptions, depth first, one run each, until one
    /// fails or the bounded space is done (or a limit: `ConformanceConfiguration
    /// .explorationScheduleLimit`, `.explorationTimeLimit`). A preemption is a decision that
    /// switches away from the seat or driver that just ran while it may go on; a switch because
    /// it blocked, finished or parked is free. A failure's mode names its schedule
    /// (`.path(_:preemptions:)`), so its replay line runs exactly that one.
    case exhaustive(preemptions: Int)
    /// One schedule of an exhaustive exploration, named by its choices (`controlled-exhaustive2@p4:1,9:0`).
    case path(SchedulePath, preemptions: Int)

    /// How many schedules a random walk explores per program on an instrumented backend (its
    /// first, then `.schedule(1...)`, until one fails): a seated run costs a few milliseconds, and
    /// a race inside an executor (a push landing while every drainer or worker is between two
    /// critical sections) is one schedule in a few hundred of the generated programs'. PCT, whose
    /// draws aim at a bug's depth, runs one per program.
    public static let schedulesPerProgram = 2

    /// The bound of `exhaustive` when none is given (`controlled-exhaustive`): CHESS found most
    /// of its bugs within two preemptions.
    public static let defaultPreemptionBound = 2

    public var description: String {
        switch self {
        case .randomWalk: return "random"
        case .pct(let depth): return "pct\(depth)"
        case .schedule(let number, let base): return "\(base)@\(number)"
        case .exhaustive(let bound): return "exhaustive\(bound)"
        case .path(let path, let bound): return "exhaustive\(bound)@\(path)"
        }
    }

    /// The strategy without its schedule number or path.
    var base: ScheduleStrategy {
        switch self {
        case .schedule(_, let base): return base.base
        case .path(_, let bound): return .exhaustive(preemptions: bound)
        case .randomWalk, .pct, .exhaustive: return self
        }
    }

    /// `random`, `pct` (depth 3) or `pct<d>`, each optionally followed by `@<n>` (schedule `n`);
    /// `exhaustive` (2 preemptions) or `exhaustive<n>`, optionally followed by `@` and a path
    /// (`exhaustive2@p4:1,9:0`, `SchedulePath`).
    public init?(_ text: String) {
        let lower = text.lowercased()
        if let at = lower.lastIndex(of: "@") {
            guard let base = ScheduleStrategy(String(lower[..<at])), base.base == base else { return nil }
            let rest = String(lower[lower.index(after: at)...])
            switch base {
            case .exhaustive(let bound):
                guard let path = SchedulePath(rest) else { return nil }
                self = .path(path, preemptions: bound)
            case .randomWalk, .pct, .schedule, .path:
                guard let number = Int(rest), number >= 1 else { return nil }
                self = .schedule(number, of: base)
            }
            return
        }
        if lower == "random" || lower == "randomwalk" { self = .randomWalk; return }
        for (prefix, standard) in [("pct", 3), ("exhaustive", Self.defaultPreemptionBound)] where lower.hasPrefix(prefix) {
            let digits = lower.dropFirst(prefix.count)
            guard let number = digits.isEmpty ? standard : Int(digits), number >= (prefix == "pct" ? 1 : 0) else { return nil }
            self = prefix == "pct" ? .pct(depth: number) : .exhaustive(preemptions: number)
            return
        }
        return nil
    }
}
