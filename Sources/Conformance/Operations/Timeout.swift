extension ProgramOperation {
    /// `t<task> = t<antecedent>.timeout(after:)`: the antecedent's outcome, or `timedOut` at the
    /// deadline, whichever comes first (C5.4).
    public struct Timeout: TaskOperation, FormattedOperation {
        public var task = 0
        public var antecedent = 0
        public var microseconds = 0

        static let format: StepFormat<Self> = "t\(\.task) = t\(\.antecedent).timeout(after: \(\.microseconds)us)"

        static func weight(in program: ProgramBuilder) -> Int { program.intTasks.isEmpty || !program.usesOutsideWork ? 0 : 3 }

        /// Never held: the timer completes it whatever its antecedent does.
        static func generate(into program: inout ProgramBuilder) {
            guard let antecedent = program.rng.pick(program.intTasks) else { return }
            let timeout = Timeout(task: program.nextTask, antecedent: antecedent, microseconds: program.rng.int(in: 0...2000))
            program.addTask(.timeout(timeout), sources: [], held: false)
        }

        var uses: [Use] { [.task(antecedent)] }
        func renumbered(_ ids: Renumbering) -> Self {
            Self(task: ids.task(task), antecedent: ids.task(antecedent), microseconds: microseconds)
        }

        var neverWaits: Bool { false }
        var outsideWork: OutsideWork { .completes(task: task, within: .microseconds(microseconds)) }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] { [.timeout] }
        var timedCompletion: TimedCompletion? { .racesAntecedent(task: task, antecedent: antecedent, microseconds: microseconds) }

        func perform(in execution: ProgramExecution, step: Int) {
            guard let antecedentTask = execution.slots.task(antecedent)?.intTask else { return }
            execution.register(task, .int(antecedentTask.timeout(after: .microseconds(microseconds))))
        }

        /// The timer completes it whatever the antecedent does.
        var dependence: Dependence { .nothing }
        var madeFromSource: Bool { true }
        var pendingRule: Rule { .c2_2 }

        /// Whichever comes first: the antecedent's outcome or the timer; a pending antecedent times out.
        func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation {
            let timedOut = Outcome.failure(.timedOut(microseconds: Int64(microseconds)))
            let before = model.input(antecedent)
            if let value = model.oracle.resolved(before, task: antecedent) { return .outcomes(unique([value, timedOut]), .c5_4) }
            if case .pending = before { return .outcomes([timedOut], .c5_4) }
            return .unknown
        }
    }

    public static func timeout(task: Int, antecedent: Int, microseconds: Int) -> Self {
        .timeout(Timeout(task: task, antecedent: antecedent, microseconds: microseconds))
    }
}
