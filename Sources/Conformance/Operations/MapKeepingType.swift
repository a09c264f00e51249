import TaskAPI

extension ProgramOperation {
    /// `t<task> = t<antecedent>.mapKeepingType(on: executor, token: k<token>) { body }`: the
    /// same-type shortcut of `map` called by name, with `map(on:token:_:)` when it answers `nil`,
    /// as the `map` conveniences do (C3.3, C4.3). What it makes is a `map`, judged as one: every
    /// fact of the model and the checks is the `Chain` step `map(on:token:)` with the same ids.
    ///
    /// The first kind drawn from a stream of its own (`ownStream`): after every other step, so
    /// that adding it left every line of every earlier program as it was.
    public struct MapKeepingType: TaskOperation, FormattedOperation {
        public var task = 0
        public var antecedent = 0
        public var executor: ExecutorRef = .default
        public var token: Int?
        public var body: BodyAction = .returns

        static let format: StepFormat<Self> =
            "t\(\.task) = t\(\.antecedent).mapKeepingType(on: \(\.executor)\(token: \.token)) { \(\.body) }"

        /// Never by the main stream: `ownStream` draws it.
        static func weight(in program: ProgramBuilder) -> Int { 0 }
        static var ownStream: OwnStream? { OwnStream(salt: 0x6D61_704B_6565_7054, steps: [70, 22, 8]) }

        static func generate(into program: inout ProgramBuilder) {
            guard let antecedent = program.rng.pick(program.intTasks) else { return }
            let (sources, held) = program.dependencies([antecedent])
            let step = Self(
                task: program.nextTask, antecedent: antecedent, executor: program.executor(), token: program.token(), body: program.body())
            program.addTask(.mapKeepingType(step), sources: sources, held: held)
        }

        /// The `map(on:token:)` continuation this step makes, for everything but its call.
        var map: Chain {
            Chain(task: task, kind: .map, antecedent: antecedent, executor: executor, token: token, body: body, form: .requirement)
        }

        var uses: [Use] { map.uses }
        func renumbered(_ ids: Renumbering) -> Self {
            Self(task: ids.task(task), antecedent: ids.task(antecedent), executor: executor, token: token.map(ids.token), body: body)
        }

        var neverWaits: Bool { true }
        var registersOrCompletes: Bool { true }
        /// The shortcut, which every step calls (a backend answering `nil` has its
        /// `map(on:token:_:)` called too, which `Chain` steps count).
        var entryPoints: [EntryPoint] {
            [.mapKeepingType] + executor.entryPoints + tokenEntryPoints(token) + (body == .checkpoint ? [.tokenCheckpoint] : [])
                + [.isCurrent, .status]
        }
        var bodySpec: BodySpec? { map.bodySpec }

        func perform(in execution: ProgramExecution, step: Int) {
            guard let antecedentTask = execution.slots.task(antecedent)?.intTask else { return }
            let (t, action, ref) = (task, body, executor)
            let (on, token) = (execution.executors[executor], execution.token(token))
            let probe = execution.makeProbe("continuation of t\(t)")
            @Sendable func transform(_ value: Int) throws -> Int {
                try execution.body(task: t, step: step, input: .success(value), action: action, token: token, probe: probe, executor: ref)
            }
            let made: any AsyncTask<Int> =
                antecedentTask.mapKeepingType(on: on, token: token, transform) ?? antecedentTask.map(on: on, token: token, transform)
            execution.register(t, .int(made))
        }

        var dependence: Dependence { map.dependence }
        var madeFromSource: Bool { false }
        var pendingRule: Rule { map.pendingRule }
        func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation { map.expectation(step: step, in: model) }
    }

    public static func mapKeepingType(task: Int, antecedent: Int, executor: ExecutorRef, token: Int? = nil, body: BodyAction) -> Self {
        .mapKeepingType(MapKeepingType(task: task, antecedent: antecedent, executor: executor, token: token, body: body))
    }
}
