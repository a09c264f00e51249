/// One decision of a controlled run with two candidates or more, as a bounded-exhaustive
/// exploration records it (`StrategyState`, `ScheduleExplorer`): how many candidates there were,
/// which one was the default, which was picked, and whether picking another than the default
/// is a preemption.
struct ScheduleDecision: Equatable {
    /// Candidates, in key order.
    let count: Int
    /// The default pick: the one that just ran, if it is a candidate; else the first (0).
    let defaultCandidate: Int
    let picked: Int
    /// The one that just ran is a candidate (it may go on): picking another one preempts it.
    /// A switch forced because it blocked, finished or parked, and a draw (which of a
    /// condition's waiters a signal wakes, how many of a serial executor's jobs go over
    /// together), is free.
    let preemptive: Bool

    /// What picking `candidate` here costs in preemptions.
    func cost(of candidate: Int) -> Int {
        preemptive && candidate != defaultCandidate ? 1 : 0
    }

    /// The candidates in the order an exploration tries them: the default first, then the
    /// others in key order.
    var order: [Int] {
        [defaultCandidate] + (0..<count).filter { $0 != defaultCandidate }
    }

    /// The same decision seen again in a replayed prefix: the same candidates and default.
    func sameChoice(as other: ScheduleDecision) -> Bool {
        count == other.count && defaultCandidate == other.defaultCandidate && preemptive == other.preemptive
    }
}
