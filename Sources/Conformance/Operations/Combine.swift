import TaskAPI

extension ProgramOperation {
    /// `t<task> = <kind>([t<inputs>...])`: a combinator over earlier tasks, possibly none (C5);
    /// `whenAll` also as `whenAll(voids:)` of the inputs' `asVoid()`, or `whenAll(a, b, ...)` of
    /// 1 to 4 inputs joined into a tuple (C9.1). Inputs marked `foreign` (`whenAll([t1, foreign
    /// t3])`) are handed the backend as `ForeignTask`s, tasks of a class it does not know, with
    /// their outcomes (contract 1.4; the marks are `ForeignStream`'s).
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
        /// The positions in `inputs` of the inputs handed the backend as `ForeignTask`s.
        public var foreign: Set<Int>

        public init(task: Int, kind: CombinatorKind, inputs: [Int], form: Form = .array, foreign: Set<Int> = []) {
            self.task = task
            self.kind = kind
            self.inputs = inputs
            let packable = (1...4).contains(inputs.count)
            self.form = kind != .whenAll || (form == .pack && !packable) ? .array : form
            self.foreign = foreign.filter(inputs.indices.contains)
        }

        public var description: String {
            let list = inputs.indices.map { ForeignStream.text("t\(inputs[$0])", foreign: foreign.contains($0)) }
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
                    guard let (inputs, foreign) = s.markedInputs(closing: "])", suffix: ".asVoid()") else { return nil }
                    return Self(task: task, kind: .whenAll, inputs: inputs, form: .voids, foreign: foreign)
                }
                guard let kind = s.oneOf(CombinatorKind.self), s.take("(") else { return nil }
                if s.take("[") {
                    guard let (inputs, foreign) = s.markedInputs(closing: "])") else { return nil }
                    return Self(task: task, kind: kind, inputs: inputs, foreign: foreign)
                }
                guard let (inputs, foreign) = s.markedInputs(closing: ")") else { return nil }
                let pack = Self(task: task, kind: kind, inputs: inputs, form: .pack, foreign: foreign)
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
        func renumbered(_ ids: Renumbering) -> Self {
            Self(task: ids.task(task), kind: kind, inputs: inputs.map(ids.task), form: form, foreign: foreign)
        }

        var neverWaits: Bool { true }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] {
            switch form {
            case .array: return [kind.entryPoint]
            case .voids: return [.whenAllVoids, .asVoid]
            case .pack: return [.whenAllPack]
            }
        }
        /// The combinator with each input dropped in turn, then with each foreign input plain.
        var smallerForms: [ProgramOperation] {
            let fewer = inputs.indices.map { drop in
                var fewer = self
                fewer.inputs.remove(at: drop)
                fewer.foreign = Set(foreign.compactMap { $0 == drop ? nil : $0 > drop ? $0 - 1 : $0 })
                return ProgramOperation.combine(fewer)
            }
            let plainer = foreign.sorted().map { position in
                var plainer = self
                plainer.foreign.remove(position)
                return ProgramOperation.combine(plainer)
            }
            return fewer + plainer
        }
        var inputCount: Int { inputs.count }

        /// Now and then some inputs foreign (`ForeignStream.inputs`).
        func markedForeign(_ rng: inout SplitMix64) -> ProgramOperation? {
            let positions = ForeignStream.inputs(of: inputs.count, &rng)
            guard !positions.isEmpty else { return nil }
            var marked = self
            marked.foreign = positions
            return .combine(marked)
        }
        var foreignCount: Int { foreign.count }

        func perform(in execution: ProgramExecution, step: Int) {
            let tasks = inputs.indices.compactMap { position in
                execution.slots.task(inputs[position])?.intTask.map { ForeignTask.handed($0, foreign: foreign.contains(position)) }
            }
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
