extension ProgramOperation {
    /// `t<task> = makeSource()`: a new completion source. A held source is completed by the
    /// harness only after every driver finished, with `held`'s outcome.
    public struct MakeSource: TaskOperation {
        public var task: Int
        public var held: SetterOutcome?

        public init(task: Int, held: SetterOutcome?) {
            self.task = task
            self.held = held
        }

        static let kind = OperationKind.makeSource
        public var description: String { "t\(task) = makeSource()" + (held.map { " held(\($0.rawValue))" } ?? "") }
        var operation: ProgramOperation { .makeSource(self) }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                guard let task = s.id("t"), s.take(" = makeSource()") else { return nil }
                guard s.take(" held(") else { return Self(task: task, held: nil) }
                guard let held = s.oneOf(SetterOutcome.self), s.take(")") else { return nil }
                return Self(task: task, held: held)
            }
        }

        static func weight(in program: ProgramBuilder) -> Int { 14 }

        static func generate(into program: inout ProgramBuilder) {
            let held: SetterOutcome? = program.rng.chance(15) ? program.setterOutcome() : nil
            let task = program.nextTask
            program.addTask(.makeSource(task: task, held: held), sources: [task], held: held != nil)
            if held == nil { program.openSources.append(task) }
        }

        var uses: [Use] { [] }
        var createdToken: Int? { nil }
        func renumbered(_ ids: Renumbering) -> Self { Self(task: ids.task(task), held: held) }

        var neverWaits: Bool { true }
        var outsideWork: OutsideWork { .none }
        var blocking: Blocking { .never }
        var registersOrCompletes: Bool { true }

        func perform(in execution: ProgramExecution, step: Int) {
            let source = execution.backend.makeSource(of: Int.self)
            execution.register(task, .int(source.task), source: source)
        }

        var dependence: Dependence { .source(held: held != nil) }
        var pendingRule: Rule { .c2_2 }

        /// The winning setter's outcome (any racing one's if none is seen winning); a held
        /// source's, after the drivers; `abandoned` for a source released pending (C8.3).
        func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation {
            if model.oracle.releasedSources.contains(task) { return model.oracle.releasedSource(task) }
            if let held {
                if model.world == .phaseOne { return .pending }
                return .outcomes([Oracle.outcome(held, value: ProgramValues.heldValue(step: step))], .c1_1)
            }
            let setters = model.oracle.observations.setters[task] ?? []
            let winners = setters.filter(\.won)
            let chosen = winners.isEmpty ? setters : winners
            let allowed = chosen.compactMap { model.oracle.setterOutcome(step: $0.step) }
            return allowed.isEmpty ? .unknown : .outcomes(unique(allowed), .c1_2)
        }
    }

    /// `t<task> = makeSource()`, held with `held`'s outcome or not.
    public static func makeSource(task: Int, held: SetterOutcome?) -> Self { .makeSource(MakeSource(task: task, held: held)) }
}
