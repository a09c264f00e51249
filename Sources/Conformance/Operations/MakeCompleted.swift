extension ProgramOperation {
    /// `t<task> = backend.completed(_:)` (C1.4).
    public struct MakeCompleted: TaskOperation {
        public var task: Int
        public var outcome: SetterOutcome

        public init(task: Int, outcome: SetterOutcome) {
            self.task = task
            self.outcome = outcome
        }

        static let kind = OperationKind.makeCompleted
        public var description: String { "t\(task) = completed(\(outcome.rawValue))" }
        var operation: ProgramOperation { .makeCompleted(self) }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                guard let task = s.id("t"), s.take(" = completed("), let outcome = s.oneOf(SetterOutcome.self), s.take(")") else { return nil }
                return Self(task: task, outcome: outcome)
            }
        }

        static func weight(in program: ProgramBuilder) -> Int { 3 }

        static func generate(into program: inout ProgramBuilder) {
            program.addTask(.makeCompleted(task: program.nextTask, outcome: program.setterOutcome()), sources: [], held: false)
        }

        var uses: [Use] { [] }
        var createdToken: Int? { nil }
        func renumbered(_ ids: Renumbering) -> Self { Self(task: ids.task(task), outcome: outcome) }

        var neverWaits: Bool { true }
        var outsideWork: OutsideWork { .none }
        var blocking: Blocking { .never }
        var registersOrCompletes: Bool { true }

        func perform(in execution: ProgramExecution, step: Int) {
            execution.payloads.write(step)
            let completion = ProgramExecution.completion(outcome, value: ProgramValues.value(step: step))
            execution.register(task, .int(execution.backend.completed(completion)))
        }

        var dependence: Dependence { .nothing }
        var pendingRule: Rule { .c2_2 }

        func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation {
            .outcomes([Oracle.outcome(outcome, value: ProgramValues.value(step: step))], .c1_4)
        }
    }

    public static func makeCompleted(task: Int, outcome: SetterOutcome) -> Self {
        .makeCompleted(MakeCompleted(task: task, outcome: outcome))
    }
}
