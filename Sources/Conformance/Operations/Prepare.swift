import TaskAPI

extension ProgramOperation {
    /// `t<task> = backend.prepare(on: executor, token: k<token>) { body }`, the body taking the
    /// prepared task's token or (`noToken`) none: pending until a start (C9.3). One with no
    /// `start` step is started by the harness after the drivers, like a held source.
    public struct Prepare: TaskOperation {
        public var task: Int
        public var token: Int?
        public var body: BodyAction
        /// Where `start()` runs the body when the start names no executor (the harness's start).
        public var executor: ExecutorRef
        /// The body takes no token.
        public var noToken: Bool

        public init(task: Int, token: Int?, body: BodyAction, executor: ExecutorRef = .default, noToken: Bool = false) {
            self.task = task
            self.token = token
            self.body = body
            self.executor = executor
            self.noToken = noToken
        }

        static let kind = OperationKind.prepare
        public var description: String {
            "t\(task) = prepare(on: .some(\(executor))\(tokenArgument(token))) { \(noToken ? "() in " : "")\(body.rawValue) }"
        }
        var operation: ProgramOperation { .prepare(self) }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                guard let task = s.id("t"), s.take(" = prepare(on: .some("), let executor = s.executor(), s.take(")") else { return nil }
                let token = s.tokenArgument()
                guard s.take(") { ") else { return nil }
                let noToken = s.take("() in ")
                guard let body = s.oneOf(BodyAction.self), s.take(" }") else { return nil }
                return Self(task: task, token: token, body: body, executor: executor, noToken: noToken)
            }
        }

        static func weight(in program: ProgramBuilder) -> Int { 3 }

        /// Most get a start later; the rest are started by the harness after the drivers, so
        /// that their continuations wait in phase one (C9.3). A body that takes no token has no
        /// checkpoint: `cancel()` reaches the body only through the prepared task's token.
        static func generate(into program: inout ProgramBuilder) {
            let task = program.nextTask
            let noToken = program.rng.chance(30)
            var body = program.body()
            if noToken, body == .checkpoint { body = .returns }
            let prepare = Prepare(task: task, token: program.token(), body: body, executor: program.rng.chance(60) ? .default : program.executor(),
                                  noToken: noToken)
            program.addTask(.prepare(prepare), sources: [task], held: true)
            program.unstarted.append(task)
        }

        var uses: [Use] { token.map { [.token($0)] } ?? [] }
        var createdToken: Int? { nil }
        func renumbered(_ ids: Renumbering) -> Self {
            Self(task: ids.task(task), token: token.map(ids.token), body: body, executor: executor, noToken: noToken)
        }

        var neverWaits: Bool { true }
        var outsideWork: OutsideWork { .none }
        var blocking: Blocking { .never }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] {
            [noToken ? .prepareNoToken : .prepare, .preparedTask] + executor.entryPoints + tokenEntryPoints(token)
                + (body == .checkpoint ? [.tokenCheckpoint] : []) + [.status]
        }
        var bodySpec: BodySpec? { BodySpec(task: task, executor: .startedBy(fallback: executor), token: token) }

        func perform(in execution: ProgramExecution, step: Int) {
            let probe = execution.makeProbe("prepared body of t\(task)")
            let (t, action) = (task, body)
            let on: (any Executor)? = execution.executors[executor]
            let prepared: PreparedTask<Int>
            if noToken {
                prepared = execution.backend.prepare(on: on, token: execution.token(token)) { [execution] () throws -> Int in
                    try execution.body(task: t, step: step, input: nil, action: action, token: nil, probe: probe)
                }
            } else {
                prepared = execution.backend.prepare(on: on, token: execution.token(token)) { [execution] (token: CancellationToken) in
                    try execution.body(task: t, step: step, input: nil, action: action, token: token, probe: probe)
                }
            }
            execution.slots.putPrepared(task, prepared)
            execution.register(task, .int(prepared.task))
        }

        var dependence: Dependence { .start }
        var madeFromSource: Bool { false }
        var pendingRule: Rule { .c9_3 }

        func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation {
            Self.expectation(task: task, step: step, token: token, body: body, in: model)
        }

        /// A prepared task's: its body's result once it ran; cancelled if its token (or its own
        /// `cancel()`) was cancelled and the body never ran; pending in phase one while no step
        /// starts it (C9.3).
        static func expectation(task: Int, step: Int, token: Int?, body: BodyAction, in model: Oracle.Evaluation) -> Expectation {
            let oracle = model.oracle
            // Started by the harness only after the drivers: in phase one the body cannot have run.
            let startedByStep = oracle.program.steps.contains {
                if case .start(let start) = $0.operation { return start.task == task } else { return false }
            }
            let bodyRan = oracle.observations.bodies[task] != nil && (model.world == .final || startedByStep)
            if bodyRan { return oracle.bodyResult(task, step: step, action: body) }
            switch oracle.preparedCancellation(task, token: token) {
            case .definite: return .outcomes([.cancelled], .c9_3)
            case .maybe: return .unknown
            case .never: break
            }
            if model.world == .phaseOne, !startedByStep { return .pending }
            // Not run (yet): what the body will do; checkpoint() returns, the token being uncancelled.
            let action = body == .checkpoint ? .returns : body
            return .outcomes(oracle.bodyResult(task, step: step, action: action).allowed ?? [], .c9_3)
        }
    }

    public static func prepare(task: Int, token: Int?, body: BodyAction) -> Self {
        .prepare(Prepare(task: task, token: token, body: body))
    }
}
