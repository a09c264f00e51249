import TaskAPI

/// One program through its stages, one way: run (`ProgramRunner`, which records what happens
/// and asks the model only which tasks to wait for), then check (`ProgramChecks`, which judges
/// the record). Generation comes before (`ProgramGenerator`), shrinking and reporting after
/// (`Shrinker`, `ConformanceReport`).
struct ProgramPipeline {
    var runner: ProgramRunner
    /// Exhaustive mode: the schedules and the time one program's exploration may take, and when
    /// the whole check must stop (`ConformanceConfiguration.deadline`).
    let explorationScheduleLimit: Int
    let explorationTimeLimit: Duration
    let deadline: Uptime?

    /// The pipeline `configuration` describes, with backends from `makeBackend`.
    init(
        makeBackend: @escaping @Sendable () -> any TaskBackend, configuration: ConformanceConfiguration,
        leakLimit: Duration? = nil
    ) {
        runner = ProgramRunner(
            makeBackend: makeBackend, executors: configuration.executors, hangLimit: configuration.hangLimit,
            livelockFactor: configuration.livelockFactor, leakLimit: leakLimit ?? configuration.leakLimit,
            timingSlack: configuration.timingSlack,
            progress: OracleProgress())
        explorationScheduleLimit = configuration.explorationScheduleLimit
        explorationTimeLimit = configuration.explorationTimeLimit
        deadline = configuration.deadline
    }

    /// How long one phase may take (a shrink candidate's is shorter).
    var hangLimit: Duration {
        get { runner.hangLimit }
        set { runner.hangLimit = newValue }
    }

    /// Runs and checks `program`. A random walk on an instrumented backend explores
    /// `ScheduleStrategy.schedulesPerProgram` schedules (its own, then `.schedule(1...)` of it)
    /// until one fails: the result is the failing schedule's (its mode names it), or the first's.
    /// Exhaustive: every schedule within the bound, until one fails or a limit
    /// (`ScheduleExplorer`); the result is the failing schedule's, or the last's, with its
    /// `exploration`.
    func run(_ program: Program, mode: ScheduleMode = .stress) -> ProgramResult {
        if case .controlled(.exhaustive(let bound)) = mode {
            let end = min(Uptime.now + explorationTimeLimit, deadline ?? .distantFuture)
            return ScheduleExplorer(runner: runner, bound: bound, scheduleLimit: explorationScheduleLimit, deadline: end)
                .explore(program)
        }
        let record = runner.run(program, mode: mode)
        let first = ProgramChecks.check(record, slack: runner.timingSlack)
        guard case .controlled(let strategy) = mode, strategy == .randomWalk, record.seated, first.findings.isEmpty,
            first.notReproducible.isEmpty
        else { return first }
        for number in 1..<ScheduleStrategy.schedulesPerProgram {
            let other = ProgramChecks.check(
                runner.run(program, mode: .controlled(.schedule(number, of: strategy))),
                slack: runner.timingSlack)
            if !other.findings.isEmpty { return other }
        }
        return first
    }

    /// Runs `program` until a run finds something, at most `attempts` times, while its schedule
    /// does not replay exactly (stress mode, or a controlled run that saw work from outside its
    /// control): a replay of a race that may not come back at once. The last run, and how many.
    ///
    /// A replay of a failure (`replaying`) runs again in every mode until a run reproduces it: it
    /// breaks one of `replaying.rules` (any rule when empty). A controlled schedule that replayed
    /// exactly fails the same way every time, but a backend's own threads may have moved it
    /// without the run seeing them; a few runs cost little next to a silent "passed".
    func run(
        _ program: Program, mode: ScheduleMode, attempts: Int, replaying: ReplayExpectation? = nil
    ) -> (result: ProgramResult, attempts: Int) {
        var made = 1
        var result = run(program, mode: mode)
        func again() -> Bool {
            if let replaying { return !replaying.reproduced(by: result) }
            return result.findings.isEmpty && (!mode.mode(forProgram: 0).isControlled || !result.notReproducible.isEmpty)
        }
        while made < attempts, !result.abandoned, again() {
            made += 1
            result = run(program, mode: mode)
        }
        return (result, made)
    }
}
