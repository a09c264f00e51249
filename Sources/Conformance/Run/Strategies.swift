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

/// A strategy's state during one run: picks one of `count` enabled choices, each named by a
/// stable key (a driver or a job), so that the same seed makes the same picks.
struct StrategyState {
    private var rng: SplitMix64
    private let strategy: ScheduleStrategy
    /// PCT: priorities by key; the scheduling points at which the running one is demoted.
    private var priorities: [Int: Int] = [:]
    private var changePoints: [Int] = []
    private var point = 0

    init(strategy: ScheduleStrategy, seed: UInt64, expectedPoints: Int) {
        var number: UInt64 = 0
        if case .schedule(let n, _) = strategy { number = UInt64(n) }
        rng = SplitMix64(seed: seed ^ 0x5EED_5CED_0000_0001 ^ (number &* 0x9E37_79B9_7F4A_7C15))
        let strategy = strategy.base
        self.strategy = strategy
        if case .pct(let depth) = strategy {
            let bound = max(1, expectedPoints)
            changePoints = (0..<max(0, depth - 1)).map { _ in rng.int(in: 1...bound) }.sorted()
        }
    }

    /// A new driver or job: PCT gives it a random priority above every demoted one.
    mutating func introduce(_ key: Int) {
        guard case .pct(let depth) = strategy else { return }
        priorities[key] = depth + 1 + rng.below(1 << 30)
    }

    /// A number in `0..<count`, drawn from the seed (how many of a serial executor's queued jobs
    /// go over with its oldest).
    mutating func draw(_ count: Int) -> Int { rng.below(max(1, count)) }

    /// Picks one of `keys` (non-empty, in a stable order); returns its index.
    mutating func pick(_ keys: [Int]) -> Int {
        point += 1
        switch strategy {
        case .schedule:
            preconditionFailure("StrategyState keeps a strategy's base, never a schedule number: \(strategy)")
        case .randomWalk:
            return rng.below(keys.count)
        case .pct:
            var best = 0
            for index in keys.indices where (priorities[keys[index]] ?? 0) > (priorities[keys[best]] ?? 0) {
                best = index
            }
            // A change point: the chosen one is demoted below every other, and the pick is redone.
            var demoted = false
            while let next = changePoints.first, next <= point {
                changePoints.removeFirst()
                priorities[keys[best]] = changePoints.count + 1
                demoted = true
            }
            if demoted {
                best = 0
                for index in keys.indices where (priorities[keys[index]] ?? 0) > (priorities[keys[best]] ?? 0) {
                    best = index
                }
            }
            return best
        }
    }
}
