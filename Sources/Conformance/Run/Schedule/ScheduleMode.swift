/// How programs run.
public enum ScheduleMode: Sendable, Hashable, CustomStringConvertible {
    /// Real threads: drivers on threads of their own, the backend's executors. Finds data races.
    case stress
    /// The harness owns every executor and runs drivers and jobs one at a time on one thread,
    /// in an order drawn from the seed by `strategy`: the same seed is the same interleaving.
    case controlled(ScheduleStrategy)
    /// Program `i` runs controlled with a random walk (i % 4 == 0), with PCT of depth 3
    /// (i % 4 == 2), or under stress (odd i): the default.
    case mixed

    /// The mode program `index` of a run uses.
    public func mode(forProgram index: Int) -> ScheduleMode {
        guard case .mixed = self else { return self }
        switch index % 4 {
        case 0: return .controlled(.randomWalk)
        case 2: return .controlled(.pct(depth: 3))
        default: return .stress
        }
    }

    public var isControlled: Bool { if case .controlled = self { return true } else { return false } }

    public var description: String {
        switch self {
        case .stress: return "stress"
        case .controlled(let strategy): return "controlled-\(strategy)"
        case .mixed: return "mixed"
        }
    }

    /// `stress`, `mixed`, `controlled` (random walk), `controlled-random`, `controlled-pct3`,
    /// or just `random` / `pct3`.
    public init?(_ text: String) {
        let lower = text.lowercased()
        switch lower {
        case "stress": self = .stress
        case "mixed": self = .mixed
        case "controlled": self = .controlled(.randomWalk)
        default:
            let rest = lower.hasPrefix("controlled-") ? String(lower.dropFirst("controlled-".count)) : lower
            guard let strategy = ScheduleStrategy(rest) else { return nil }
            self = .controlled(strategy)
        }
    }
}
