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
