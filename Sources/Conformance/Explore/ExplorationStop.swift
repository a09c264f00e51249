/// Why a bounded-exhaustive exploration of one program stopped before it explored every
/// schedule within its preemption bound (`ScheduleStrategy.exhaustive(preemptions:)`).
public enum ExplorationStop: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A schedule broke a rule: the exploration stops at the first that does.
    case failure = "a failing schedule"
    /// `ConformanceConfiguration.explorationScheduleLimit` schedules ran.
    case scheduleLimit = "the schedule limit"
    /// `ConformanceConfiguration.explorationTimeLimit` passed (or the check's own time limit).
    case timeLimit = "the time limit"
    /// A schedule did not replay its forced choices, or saw work from outside the run (a thread
    /// that is no seat, a hand-off that did not arrive): the schedules it would lead to are not
    /// the program's, so the exploration says so and stops rather than explore them.
    case notReproducible = "a schedule that is not reproducible"
    /// A run left threads blocked inside the backend: nothing more can run on it.
    case hang = "a hang"

    public var description: String { rawValue }
}
