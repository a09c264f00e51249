extension ProgramOperation {
    /// `t<task> = <kind>([t<inputs>...])`: a combinator over earlier tasks, possibly none (C5).
    public struct Combine: TaskOperation {
        public var task: Int
        public var kind: CombinatorKind
        public var inputs: [Int]

        public init(task: Int, kind: CombinatorKind, inputs: [Int]) {
            self.task = task
            self.kind = kind
            self.inputs = inputs
        }

        static let kind = OperationKind.combine
        public var description: String { "t\(task) = \(kind.rawValue)([\(inputs.map { "t\($0)" }.joined(separator: ", "))])" }
        var operation: ProgramOperation { .combine(self) }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                guard let task = s.id("t"), s.take(" = "), let kind = s.oneOf(CombinatorKind.self), s.take("("), let inputs = s.list("t"),
                      s.take(")") else { return nil }
                return Self(task: task, kind: kind, inputs: inputs)
            }
        }

        static func weight(in program: ProgramBuilder) -> Int { 6 }

        static func generate(into program: inout ProgramBuilder) {
            let kind = program.combinatorKind()
            let count = program.rng.chance(10) ? 0 : program.rng.int(in: 1...5)
            let inputs = program.rng.subset(of: program.intTasks, count: count)
            let sources = inputs.flatMap { program.sourcesDependedOn[$0] }
            let held = inputs.contains { program.dependsOnHeld[$0] }
            let intValued = kind == .race || kind == .any
            program.addTask(.combine(task: program.nextTask, kind: kind, inputs: inputs), sources: sources, held: held,
                            intValued: intValued)
        }

        var uses: [Use] { inputs.map(Use.task) }
        var createdToken: Int? { nil }
        func renumbered(_ ids: Renumbering) -> Self { Self(task: ids.task(task), kind: kind, inputs: inputs.map(ids.task)) }

        var neverWaits: Bool { true }
        var outsideWork: OutsideWork { .none }
        var blocking: Blocking { .never }
        var registersOrCompletes: Bool { true }

        func perform(in execution: ProgramExecution, step: Int) {
            let tasks = inputs.compactMap { execution.slots.task($0)?.intTask }
            let backend = execution.backend
            switch kind {
            case .whenAll: execution.register(task, .values(backend.whenAll(tasks)))
            case .whenAllSettled: execution.register(task, .settled(backend.whenAllSettled(tasks)))
            case .race: execution.register(task, .int(backend.race(tasks)))
            case .any: execution.register(task, .int(backend.any(tasks)))
            }
        }

        var dependence: Dependence { .tasks(inputs) }
        var pendingRule: Rule {
            switch kind {
            case .whenAll: return .c5_1
            case .whenAllSettled: return .c5_2
            case .race, .any: return .c5_3
            }
        }

        /// C5.1 to C5.3 over the inputs' expectations, `any`'s aggregate in input order.
        func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation {
            let states = inputs.map { model.oracle.resolvedOrState(model.input($0), task: $0) }
            let outcomes = states.compactMap { if case .outcome(let o) = $0 { return o } else { return nil } }
            let anyUnknown = states.contains { if case .unknown = $0 { return true } else { return false } }
            let anyPending = outcomes.count + (anyUnknown ? 1 : 0) < states.count
            switch kind {
            case .whenAll:
                if inputs.isEmpty { return .outcomes([.values([])], .c5_1) }
                let failing = outcomes.filter { !$0.isSuccess }
                if !failing.isEmpty && !anyUnknown { return .outcomes(unique(failing), .c5_1) }
                if anyUnknown { return .unknown }
                if anyPending { return .pending }
                return .outcomes([.values(outcomes.compactMap { if case .success(let v) = $0 { return v } else { return nil } })], .c5_1)
            case .whenAllSettled:
                if anyUnknown { return .unknown }
                if anyPending { return .pending }
                return .outcomes([.settled(outcomes)], .c5_2)
            case .race:
                if inputs.isEmpty { return .outcomes([.failure(.emptyInput("race"))], .c5_3) }
                if anyUnknown { return .unknown }
                if outcomes.isEmpty { return .pending }
                return .outcomes(unique(outcomes), .c5_3)
            case .any:
                if inputs.isEmpty { return .outcomes([.failure(.emptyInput("any"))], .c5_3) }
                let successes = outcomes.filter(\.isSuccess)
                if !successes.isEmpty && !anyUnknown { return .outcomes(unique(successes), .c5_3) }
                if anyUnknown { return .unknown }
                if anyPending { return .pending }
                return .outcomes([.failure(.aggregate(outcomes.compactMap(\.anyError)))], .c5_3)
            }
        }
    }

    public static func combine(task: Int, kind: CombinatorKind, inputs: [Int]) -> Self {
        .combine(Combine(task: task, kind: kind, inputs: inputs))
    }
}
