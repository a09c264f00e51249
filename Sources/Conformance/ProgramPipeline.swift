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
}
