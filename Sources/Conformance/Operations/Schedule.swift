extension ProgramOperation {
    /// `schedule(after:)` of a job that logs when it fires (C5.4).
    public struct Schedule: TasklessOperation, FormattedOperation {
        public var microseconds = 0

        static let format: StepFormat<Self> = "schedule(after: \(\.microseconds)us)"

        static func weight(in program: ProgramBuilder) -> Int { program.usesOutsideWork ? 1 : 0 }

        static func generate(into program: inout ProgramBuilder) {
            program.add(.schedule(microseconds: program.rng.int(in: 0...2000)))
        }

        var uses: [Use] { [] }
        func renumbered(_ ids: Renumbering) -> Self { self }

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
