extension ProgramOperation {
    /// `t<task> = backend.prepare(token:) { body }`: pending until a start (C9.3). One with no
    /// `start` step is started by the harness after the drivers, like a held source.
    public struct Prepare: TaskOperation {
        public var task: Int
        public var token: Int?
        public var body: BodyAction

        public init(task: Int, token: Int?, body: BodyAction) {
            self.task = task
            self.token = token
            self.body = body
        }

        static let kind = OperationKind.prepare
        public var description: String { "t\(task) = prepare(\(token.map { "token: k\($0)" } ?? "")) { \(body.rawValue) }" }
        var operation: ProgramOperation { .prepare(self) }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                guard let task = s.id("t"), s.take(" = prepare(") else { return nil }
                let token = s.take("token: ") ? s.id("k") : nil
                guard s.take(") "), let body = s.body() else { return nil }
                return Self(task: task, token: token, body: body)
            }
        }

        static func weight(in program: ProgramBuilder) -> Int { 3 }

        /// Most get a start later; the rest are started by the harness after the drivers, so
        /// that their continuations wait in phase one (C9.3).
        static func generate(into program: inout ProgramBuilder) {
            let task = program.nextTask
            program.addTask(.prepare(task: task, token: program.token(), body: program.body()), sources: [task], held: true)
            program.unstarted.append(task)
        }

        var uses: [Use] { token.map { [.token($0)] } ?? [] }
        var createdToken: Int? { nil }
        func renumbered(_ ids: Renumbering) -> Self { Self(task: ids.task(task), token: token.map(ids.token), body: body) }

        var neverWaits: Bool { true }
        var outsideWork: OutsideWork { .none }
        var blocking: Blocking { .never }
        var registersOrCompletes: Bool { true }

        func perform(in execution: ProgramExecution, step: Int) {
            let probe = execution.makeProbe("prepared body of t\(task)")
            let (t, action) = (task, body)
            let prepared = execution.backend.prepare(on: execution.executors.defaultExecutor, token: execution.token(token)) {
                [execution] token in
                try execution.body(task: t, step: step, input: nil, action: action, token: token, probe: probe)
            }
            execution.slots.putPrepared(task, prepared)
            execution.register(task, .int(prepared.task))
        }

        var dependence: Dependence { .start }
        var pendingRule: Rule { .c9_3 }

        /// Its body's result once it ran; cancelled if its token was cancelled and the body never
        /// ran; pending in phase one while no step starts it.
        func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation {
            let oracle = model.oracle
            // Started by the harness only after the drivers: in phase one the body cannot have run.
            let startedByStep = oracle.program.steps.contains {
                if case .start(let start) = $0.operation { return start.task == task } else { return false }
            }
            let bodyRan = oracle.observations.bodies[task] != nil && (model.world == .final || startedByStep)
            if bodyRan { return oracle.bodyResult(task, step: step, action: body) }
            switch oracle.tokenState(token) {
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
