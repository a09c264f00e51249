/// What one run of a program leaves for the checks: the event log, what had completed when the
/// held sources were completed, how the run ended, and what stayed alive. Facts only: the run
/// judges nothing (the checks do, `ProgramChecks`).
struct RunRecord {
    let program: Program
    var mode: ScheduleMode
    /// The events once every task completed and every body and await returned (in controlled
    /// mode, its `replayDescription`s are the replay's).
    var events: [Event] = []
    /// The events once the timers had their slack to fire too (`schedule`, `cancel(after:)`).
    var timedEvents: [Event] = []
    /// Tasks completed before the held sources were.
    var snapshot: [Bool] = []
    /// How the run ended.
    var ending: Ending = .quiescent
    /// What the interposition saw the executors do wrong (controlled mode), in the order seen.
    var executorViolations: [Finding] = []
    /// Controlled mode: what came from outside the harness (empty: reproducible).
    var notReproducible: [String] = []
    /// A seated run released because the seat holding the baton blocked outside ScheduleKit's
    /// primitives, and which then finished natively: that seat and its last point (the note in
    /// `notReproducible` says the rest).
    var blockedOutsidePrimitives: String?
    /// A seated run released because a seated phase reached its cap without becoming quiescent,
    /// and which then finished natively: which phase, and the cap (the note in
    /// `notReproducible` says the rest).
    var cappedSeatedPhase: String?
    /// Exhaustive: the decisions the schedule made (`ScheduleExplorer` picks the next from them).
    var decisions: [ScheduleDecision] = []
    /// Controlled on the seated engine (`SeatedRun`): the backend is instrumented.
    var seated = false
    /// A seated run: where its stamps went from the run's own clock to the system's, at its
    /// release (its end, or given up to go on natively; `RunClock`).
    var clockRelease: RunClock.Release?
    /// C8.1: what each body captured, and those still alive once every task completed and ran.
    var probes: [String] = []
    var liveProbes: [String] = []
    /// C8.2: the tasks made, and those still alive once every reference was dropped.
    var tasks: [Int] = []
    var liveTasks: [Int] = []
    /// C8.2: the other objects made (cancellation sources, prepared tasks), and those still
    /// alive once every reference was dropped.
    var objects: [String] = []
    var liveObjects: [String] = []

    enum Ending {
        /// Every task completed, every body and await returned.
        case quiescent
        /// Something did not finish: the run was given up (or, in controlled mode, could not go on).
        case hung(Hang)
    }
}

/// A run that did not finish, as seen when it was given up: enough for `HangDiagnosis` to name
/// the likely culprit without the run.
struct Hang {
    enum Kind {
        /// A phase did not finish within the limit (`phase` says which); threads are left
        /// blocked in the backend.
        case timedOut(phase: String)
        /// Controlled mode: nothing was left to run, yet drivers or tasks were.
        case stuck
        /// Controlled mode: a job handed to the backend's executor did not come back (`job` says which).
        case blockedJob(String)
        /// A seated run: the seat holding the baton reached no schedule point within
        /// `ProgramRunner.blockedSeatLimit` (blocked outside ScheduleKit's primitives), and the
        /// run, released to go on natively, still did not finish within the rest of the hang
        /// limit. Names the seat with its last point, and the phase that did not finish.
        case blockedSeat(String)
    }

    let kind: Kind
    /// The steps the drivers were in (or would run next, in a stuck controlled run).
    let stuckSteps: [Int]
    /// Whether the harness had completed the held sources.
    let heldCompleted: Bool
    let limit: Duration
    /// Whether the harness's observer saw each task complete.
    let observed: [Bool]
    /// Each task's real status (`nil`: not made, or freed).
    let actual: [Bool?]
    /// The tasks made so far.
    let made: Set<Int>
    let events: [Event]
    /// What still ran: bodies and awaits (phase two of a stress run; empty otherwise).
    var running = ""
    var awaitsNotResumed = 0
    /// A seated run: every seat that had not left, and where it was blocked (the stuck report).
    var seats: [String] = []
    /// A phase's watch gave the run up (`PhaseWatch`): no progress for `limit`, or a livelock at
    /// its cap. nil: no watch did (a controlled run found stuck, reported at once).
    var givenUp: PhaseWatch.GiveUp?
    /// Given up without progress while the drivers' CPU clocks were read (`DriverCPUClocks`): no
    /// driver thread used CPU time for the hang limit, so they were blocked (or given no CPU),
    /// not working.
    var driversUsedNoCPU = false

    /// How long the phase ran when it was given up, in tenths of a second ("12.3 seconds").
    var givenUpAfter: Duration {
        guard let ran = givenUp?.ran else { return limit }
        return .milliseconds(Int64((ran.seconds * 10).rounded()) * 100)
    }

    /// The run stopped testing the backend: its threads may be blocked in it.
    var abandons: Bool {
        switch kind {
        case .timedOut, .blockedJob, .blockedSeat: return true
        case .stuck: return false
        }
    }
}

extension ProgramExecution {
    /// The facts of a hang of kind `kind`, gathered now, while the run's tasks still exist.
    func hang(_ kind: Hang.Kind, stuckSteps: [Int], heldCompleted: Bool, limit: Duration) -> Hang {
        let made = Set(tasks.withLock { $0.map(\.id) })
        return Hang(
            kind: kind, stuckSteps: stuckSteps, heldCompleted: heldCompleted, limit: limit,
            observed: log.completedTasks, actual: (0..<program.taskCount).map { isCompleted(task: $0) },
            made: made, events: log.events)
    }
}
