import TaskAPI

extension Conformance {
    /// Explores every schedule of one small program with at most `preemptions` preemptions
    /// (bounded-exhaustive, as CHESS and loom do; ``ScheduleStrategy/exhaustive(preemptions:)``),
    /// depth first, each on a new backend from `makeBackend`, until a schedule breaks a rule,
    /// every schedule within the bound ran, or a limit passed
    /// (``ConformanceConfiguration/explorationScheduleLimit``,
    /// ``ConformanceConfiguration/explorationTimeLimit``).
    ///
    ///     let report = Conformance.explore(makeBackend: { MyBackend() }, program: program)
    ///     #expect(report.finished && report.passed, "\(report)")
    ///
    /// A failure is found every time the exploration runs, after the same number of schedules:
    /// the report's ``ExplorationReport/mode`` names the failing schedule
    /// (`controlled-exhaustive2@p4:1,9:0`), and
    /// `runProgram(_:program:mode:configuration:attempts:)` in that mode runs exactly it again.
    ///
    /// Keep the program small (a handful of steps, two or three drivers): the number of
    /// schedules grows with the number of decisions to the power of the bound. Seated runs
    /// (an instrumented backend: every synchronization a decision) have many more decisions
    /// than interposed ones (driver steps and executor jobs only).
    public static func explore(
        makeBackend: @escaping @Sendable () -> any TaskBackend, program: Program,
        preemptions: Int = ScheduleStrategy.defaultPreemptionBound,
        configuration: ConformanceConfiguration = ConformanceConfiguration()
    ) -> ExplorationReport {
        var configuration = configuration
        configuration.deadline = configuration.deadline ?? Uptime.now + configuration.explorationTimeLimit
        let pipeline = ProgramPipeline(makeBackend: makeBackend, configuration: configuration)
        let result = pipeline.run(program, mode: .controlled(.exhaustive(preemptions: max(0, preemptions))))
        guard let exploration = result.exploration else {
            preconditionFailure("an exhaustive run returns its exploration")
        }
        return ExplorationReport(
            program: program, exploration: exploration, findings: result.findings, mode: result.mode,
            eventLines: result.eventLines, notReproducible: result.notReproducible)
    }

    /// `explore(makeBackend:program:preemptions:configuration:)` from async code, on a thread
    /// of its own (it never blocks a thread of Swift's cooperative pool).
    public static func explore(
        makeBackend: @escaping @Sendable () -> any TaskBackend, program: Program,
        preemptions: Int = ScheduleStrategy.defaultPreemptionBound,
        configuration: ConformanceConfiguration = ConformanceConfiguration()
    ) async -> ExplorationReport {
        await onOwnThread {
            explore(makeBackend: makeBackend, program: program, preemptions: preemptions, configuration: configuration)
        }
    }
}
