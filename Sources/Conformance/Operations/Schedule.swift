extension ProgramOperation {
    /// `schedule(after:)` of a job that logs when it fires (C5.4).
    public struct Schedule: OutsideWorkProbe, FormattedOperation {
        public var microseconds = 0

        static let format: StepFormat<Self> = "schedule(after: \(\.microseconds)us)"

        static func generate(into program: inout ProgramBuilder) {
            program.add(.schedule(microseconds: program.rng.int(in: 0...2000)))
        }

        var neverWaits: Bool { false }
        var outsideWork: OutsideWork { .timer }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] { [.schedule] }
        var probedTimer: ProbedTimer? { ProbedTimer(rule: .c5_4, microseconds: microseconds, token: nil) }

        func perform(in execution: ProgramExecution, step: Int) {
            let (log, extras) = (execution.log, execution.extras)
            extras.timerArmed(step: step, dueBy: .now + .microseconds(microseconds))
            _ = execution.backend.schedule(after: .microseconds(microseconds)) {
                log.append(.timerFired(step: step))
                extras.timerFired(step: step)
            }
        }
    }

    public static func schedule(microseconds: Int) -> Self { .schedule(Schedule(microseconds: microseconds)) }
}
