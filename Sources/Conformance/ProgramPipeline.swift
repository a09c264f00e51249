import TaskAPI

/// One program through its stages, one way: run (`ProgramRunner`, which records what happens
/// and asks the model only which tasks to wait for), then check (`ProgramChecks`, which judges
/// the record). Generation comes before (`ProgramGenerator`), shrinking and reporting after
/// (`Shrinker`, `ConformanceReport`).
struct ProgramPipeline {
    var runner: ProgramRunner

    /// The pipeline `configuration` describes, with backends from `makeBackend`.
    init(makeBackend: @escaping @Sendable () -> any TaskBackend, configuration: ConformanceConfiguration,
         leakLimit: Duration? = nil) {
        runner = ProgramRunner(makeBackend: makeBackend, executors: configuration.executors, hangLimit: configuration.hangLimit,
                               leakLimit: leakLimit ?? configuration.leakLimit, timingSlack: configuration.timingSlack,
                               progress: OracleProgress())
    }

    /// How long one phase may take (a shrink candidate's is shorter).
    var hangLimit: Duration {
        get { runner.hangLimit }
        set { runner.hangLimit = newValue }
    }

    /// Runs and checks `program`. A random walk on an instrumented backend explores
    /// `ScheduleStrategy.schedulesPerProgram` schedules (its own, then `.schedule(1...)` of it)
    /// until one fails: the result is the failing schedule's (its mode names it), or the first's.
    func run(_ program: Program, mode: ScheduleMode = .stress) -> ProgramResult {
        let record = runner.run(program, mode: mode)
        let first = ProgramChecks.check(record, slack: runner.timingSlack)
        guard case .controlled(let strategy) = mode, strategy == .randomWalk, record.seated, first.findings.isEmpty,
              first.notReproducible.isEmpty else { return first }
        for number in 1..<ScheduleStrategy.schedulesPerProgram {
            let other = ProgramChecks.check(runner.run(program, mode: .controlled(.schedule(number, of: strategy))),
                                            slack: runner.timingSlack)
            if !other.findings.isEmpty { return other }
        }
        return first
    }
}
