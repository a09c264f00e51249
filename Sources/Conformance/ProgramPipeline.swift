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

    func run(_ program: Program, mode: ScheduleMode = .stress) -> ProgramResult {
        ProgramChecks.check(runner.run(program, mode: mode), slack: runner.timingSlack)
    }

    /// Runs `program` until a run finds something, at most `attempts` times, while its schedule
    /// does not replay exactly (stress mode, or a controlled run that saw work from outside its
    /// control): a replay of a race that may not come back at once. The last run, and how many.
    func run(_ program: Program, mode: ScheduleMode, attempts: Int) -> (result: ProgramResult, attempts: Int) {
        var made = 1
        var result = run(program, mode: mode)
        while made < attempts, result.findings.isEmpty, !result.abandoned,
              !mode.mode(forProgram: 0).isControlled || !result.notReproducible.isEmpty {
            made += 1
            result = run(program, mode: mode)
        }
        return (result, made)
    }
}
