/// A strategy's state during one run: picks one of `count` enabled choices, each named by a
/// stable key (a driver or a job), so that the same seed makes the same picks. Exhaustive:
/// makes the path's choices, the default elsewhere, and records every decision
/// (`ScheduleExplorer` reads them to pick the next path).
struct StrategyState {
    private var rng: SplitMix64
    private let strategy: ScheduleStrategy
    /// PCT: priorities by key; the scheduling points at which the running one is demoted.
    private var priorities: [Int: Int] = [:]
    private var changePoints: [Int] = []
    private var point = 0
    /// Exhaustive: the path's forced picks by decision; the decisions made so far; the first
    /// forced pick that did not fit the run (it diverged from its path).
    private var forced: [Int: Int] = [:]
    private(set) var decisions: [ScheduleDecision] = []
    private var misfit: String?

    init(strategy: ScheduleStrategy, seed: UInt64, expectedPoints: Int) {
        var number: UInt64 = 0
        if case .schedule(let n, _) = strategy { number = UInt64(n) }
        rng = SplitMix64(seed: seed ^ 0x5EED_5CED_0000_0001 ^ (number &* 0x9E37_79B9_7F4A_7C15))
        if case .path(let path, _) = strategy { forced = path.forced }
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
    /// Exhaustive: a free decision, the first by default.
    mutating func draw(_ count: Int) -> Int {
        guard case .exhaustive = strategy else { return rng.below(max(1, count)) }
        return count > 1 ? decide(count: count, defaultCandidate: 0, preemptive: false) : 0
    }

    /// Picks one of `keys` (non-empty, in a stable order); returns its index. `current`: the
    /// seat or driver that just ran (exhaustive: the default if it is among `keys`, and picking
    /// another one is then a preemption).
    mutating func pick(_ keys: [Int], current: Int? = nil) -> Int {
        point += 1
        switch strategy {
        case .schedule, .path:
            preconditionFailure("StrategyState keeps a strategy's base, never a schedule number or path: \(strategy)")
        case .exhaustive:
            guard keys.count > 1 else { return 0 }
            let running = current.flatMap { keys.firstIndex(of: $0) }
            return decide(count: keys.count, defaultCandidate: running ?? 0, preemptive: running != nil)
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

    /// Exhaustive: the path's pick for the next decision, or the default; recorded.
    private mutating func decide(count: Int, defaultCandidate: Int, preemptive: Bool) -> Int {
        let number = decisions.count
        var picked = forced[number] ?? defaultCandidate
        if picked >= count {
            misfit = misfit ?? "its decision \(number) had \(count) candidates, the path picks candidate \(picked)"
            picked = defaultCandidate
        }
        decisions.append(ScheduleDecision(count: count, defaultCandidate: defaultCandidate, picked: picked, preemptive: preemptive))
        return picked
    }

    /// Exhaustive: why the run did not follow its path (a pick that did not fit, or a decision
    /// the path names that the run never reached), or nil.
    var divergence: String? {
        if let misfit { return "the run diverged from its schedule path: " + misfit }
        guard let last = forced.keys.max(), last >= decisions.count else { return nil }
        return "the run diverged from its schedule path: it made \(decisions.count) decisions, the path names decision \(last)"
    }
}
