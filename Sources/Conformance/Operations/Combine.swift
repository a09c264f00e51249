import TaskAPI

extension ProgramOperation {
    /// `t<task> = <kind>([t<inputs>...])`: a combinator over earlier tasks, possibly none (C5);
    /// `whenAll` also as `whenAll(voids:)` of the inputs' `asVoid()`, or `whenAll(a, b, ...)` of
    /// 1 to 4 inputs joined into a tuple (C9.1).
    public struct Combine: TaskOperation {
        /// How `whenAll` is called (other kinds: always `array`).
        public enum Form: String, Sendable, Hashable {
            case array
            /// `whenAll(voids: inputs.map { $0.asVoid() })`: succeeds with `()`.
            case voids
            /// `whenAll(t1, t2, ...)`: a tuple, logged as the array of its values.
            case pack
        }

        public var task: Int
        public var kind: CombinatorKind
        public var inputs: [Int]
        public var form: Form

        public init(task: Int, kind: CombinatorKind, inputs: [Int], form: Form = .array) {
            self.task = task
            self.kind = kind
            self.inputs = inputs
            let packable = (1...4).contains(inputs.count)
            self.form = kind != .whenAll || (form == .pack && !packable) ? .array : form
        }

        public var description: String {
            let list = inputs.map { "t\($0)" }
            switch form {
            case .array: return "t\(task) = \(kind.rawValue)([\(list.joined(separator: ", "))])"
            case .voids: return "t\(task) = whenAll(voids: [\(list.map { "\($0).asVoid()" }.joined(separator: ", "))])"
            case .pack: return "t\(task) = whenAll(\(list.joined(separator: ", ")))"
            }
        }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                guard let task = s.id("t"), s.take(" = ") else { return nil }
                if s.take("whenAll(voids: [") {
                    var inputs: [Int] = []
                    while !s.take("])") {
                        if !inputs.isEmpty, !s.take(", ") { return nil }
                        guard let input = s.id("t"), s.take(".asVoid()") else { return nil }
                        inputs.append(input)
                    }
                    return Self(task: task, kind: .whenAll, inputs: inputs, form: .voids)
                }
                guard let kind = s.oneOf(CombinatorKind.self), s.take("(") else { return nil }
                if let inputs = s.list("t") { return s.take(")") ? Self(task: task, kind: kind, inputs: inputs) : nil }
                var inputs: [Int] = []
                while !s.take(")") {
                    if !inputs.isEmpty, !s.take(", ") { return nil }
                    guard let input = s.id("t") else { return nil }
                    inputs.append(input)
                }
                let pack = Self(task: task, kind: kind, inputs: inputs, form: .pack)
                return pack.form == .pack ? pack : nil
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
            let form = kind == .whenAll ? [Form.array, .voids, .pack][program.rng.weighted([60, 20, 20])] : .array
            program.addTask(
                .combine(Combine(task: program.nextTask, kind: kind, inputs: inputs, form: form)), sources: sources,
                held: held, intValued: intValued)
        }

        var uses: [Use] { inputs.map(Use.task) }
        func renumbered(_ ids: Renumbering) -> Self { Self(task: ids.task(task), kind: kind, inputs: inputs.map(ids.task), form: form) }

        var neverWaits: Bool { true }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] {
            switch form {
            case .array: return [kind.entryPoint]
            case .voids: return [.whenAllVoids, .asVoid]
            case .pack: return [.whenAllPack]
            }
        }
        /// The combinator with each input dropped in turn.
        var smallerForms: [ProgramOperation] {
            inputs.indices.map { drop in
                var fewer = self
                fewer.inputs.remove(at: drop)
                return .combine(fewer)
            }
        }
        var inputCount: Int { inputs.count }

        func perform(in execution: ProgramExecution, step: Int) {
            let tasks = inputs.compactMap { execution.slots.task($0)?.intTask }
            let backend = execution.backend
            switch kind {
            case .whenAll where form == .voids: execution.register(task, .void(backend.whenAll(voids: tasks.map { $0.asVoid() })))
            case .whenAll where form == .pack && (1...4).contains(tasks.count): execution.register(task, .values(Self.pack(tasks, backend)))
            case .whenAll: execution.register(task, .values(backend.whenAll(tasks)))
            case .whenAllSettled: execution.register(task, .settled(backend.whenAllSettled(tasks)))
            case .race: execution.register(task, .int(backend.race(tasks)))
            case .any: execution.register(task, .int(backend.any(tasks)))
            }
        }

        /// `whenAll(a, b, ...)` of 1 to 4 tasks, its tuple mapped to the array of its values.
        private static func pack(_ tasks: [any AsyncTask<Int>], _ backend: any TaskBackend) -> any AsyncTask<[Int]> {
            let inline = backend.inlineExecutor
            switch tasks.count {
            case 1: return backend.whenAll(tasks[0]).map(on: inline) { [$0] }
            case 2: return backend.whenAll(tasks[0], tasks[1]).map(on: inline) { [$0.0, $0.1] }
            case 3: return backend.whenAll(tasks[0], tasks[1], tasks[2]).map(on: inline) { [$0.0, $0.1, $0.2] }
            default: return backend.whenAll(tasks[0], tasks[1], tasks[2], tasks[3]).map(on: inline) { [$0.0, $0.1, $0.2, $0.3] }
            }
        }

        var dependence: Dependence { .tasks(inputs) }
        var madeFromSource: Bool { form == .array }
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
                if inputs.isEmpty { return .outcomes([form == .voids ? .success(0) : .values([])], .c5_1) }
                let failing = outcomes.filter { !$0.isSuccess }
                if !failing.isEmpty && !anyUnknown { return .outcomes(unique(failing), .c5_1) }
                if anyUnknown { return .unknown }
                if anyPending { return .pending }
                if form == .voids { return .outcomes([.success(0)], .c5_1) }
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

extension CombinatorKind {
    /// The entry point a combinator of this kind calls.
    var entryPoint: EntryPoint {
        switch self {
        case .whenAll: return .whenAll
        case .whenAllSettled: return .whenAllSettled
        case .race: return .race
        case .any: return .any
        }
    }
}
