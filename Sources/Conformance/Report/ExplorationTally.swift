/// Bounded-exhaustive explorations (`ScheduleStrategy.exhaustive(preemptions:)`), one program's
/// or summed over a check's: how many programs and schedules, how many programs were explored
/// completely (every schedule within the bound), and why the others stopped.
public struct ExplorationTally: Sendable, Hashable {
    /// The preemption bound of the explorations.
    public internal(set) var preemptions = 0
    public internal(set) var programs = 0
    public internal(set) var schedules = 0
    /// Programs whose every schedule within the bound ran.
    public internal(set) var finished = 0
    /// Programs whose exploration stopped before that, by why.
    public internal(set) var stopped: [ExplorationStop: Int] = [:]
    /// How long the explorations took.
    public internal(set) var duration: Duration = .zero

    public init() {}

    /// One program's exploration.
    init(preemptions: Int, schedules: Int, stop: ExplorationStop?, duration: Duration) {
        self.preemptions = preemptions
        programs = 1
        self.schedules = schedules
        if let stop { stopped[stop] = 1 } else { finished = 1 }
        self.duration = duration
    }

    mutating func add(_ other: ExplorationTally) {
        preemptions = max(preemptions, other.preemptions)
        programs += other.programs
        schedules += other.schedules
        finished += other.finished
        stopped.merge(other.stopped, uniquingKeysWith: +)
        duration += other.duration
    }

    /// `12 programs, 3456 schedules; 10 explored completely, 1 stopped at the schedule limit, ...`
    public var summary: String {
        let stops = ExplorationStop.allCases.compactMap { stop in stopped[stop].map { "\($0) stopped at \(stop)" } }
        return "\(programs) program\(programs == 1 ? "" : "s"), \(schedules) schedules in \(duration); "
            + (["\(finished) explored completely"] + stops).joined(separator: ", ")
    }
}
