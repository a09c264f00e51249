import TaskAPI

extension ProgramOperation {
    /// `t<task> = backend.prepare(on: executor, token: k<token>) { body }`, the body taking the
    /// prepared task's token or (`noToken`) none; or `prepareTask`, whose body returns a task
    /// (`returns`), unwrapped (C2.6): pending until a start (C9.3). One with no `start` step is
    /// started by the harness after the drivers, like a held source.
    public struct Prepare: TaskOperation {
        public var task: Int
        public var token: Int?
        public var body: BodyAction
        /// Where `start()` runs the body when the start names no executor (the harness's start).
        public var executor: ExecutorRef
        /// The body takes no token.
        public var noToken: Bool
        /// `prepareTask`: the task the body returns, whose outcome the prepared task takes.
        public var returns: InnerTask?

        public init(
            task: Int, token: Int?, body: BodyAction, executor: ExecutorRef = .default, noToken: Bool = false, returns: InnerTask? = nil
        ) {
            self.task = task
            self.token = token
            self.body = body
            self.executor = executor
            self.noToken = noToken
            self.returns = returns
        }

        public var description: String {
            "t\(task) = \(returns == nil ? "prepare" : "prepareTask")(on: .some(\(executor))\(tokenArgument(token))) "
                + "{ \(noToken ? "() in " : "")\(body.rawValue) }" + (returns.map { " -> \($0)" } ?? "")
        }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                guard let task = s.id("t"), s.take(" = prepare") else { return nil }
                let unwraps = s.take("Task")
                guard s.take("(on: .some("), let executor = s.executor(), s.take(")") else { return nil }
                let token = s.tokenArgument()
                guard s.take(") "), let read = s.runBody(unwraps: unwraps), read.keeps == nil else { return nil }
                return Self(task: task, token: token, body: read.body, executor: executor, noToken: read.noToken, returns: read.returns)
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
            // The task a prepareTask body returns: one that completes without the harness, so that
            // a started prepared task never waits on a held source.
            var returns: InnerTask?
            var sources = [task]
            if program.rng.chance(35) {
                let drawn = program.returnedTask()
                if let existing = drawn.inner.task, !program.completesEarly(existing) {
                    returns = .new
                } else {
                    (returns, sources) = (drawn.inner, sources + drawn.sources)
                }
            }
            let prepare = Prepare(
                task: task, token: program.token(), body: body, executor: program.rng.chance(60) ? .default : program.executor(),
                noToken: noToken, returns: returns)
            program.addTask(.prepare(prepare), sources: sources, held: true)
            program.unstarted.append(task)
        }

        var uses: [Use] { (returns?.task.map { [.task($0)] } ?? []) + (token.map { [.token($0)] } ?? []) }
        func renumbered(_ ids: Renumbering) -> Self {
            Self(
                task: ids.task(task), token: token.map(ids.token), body: body, executor: executor, noToken: noToken,
                returns: returns?.renumbered(ids))
        }

        var neverWaits: Bool { true }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] {
            let call: EntryPoint = returns == nil ? (noToken ? .prepareNoToken : .prepare) : (noToken ? .prepareTaskNoToken : .prepareTask)
            return [call, .preparedTask] + (returns?.entryPoints ?? []) + executor.entryPoints + tokenEntryPoints(token)
                + (body == .checkpoint ? [.tokenCheckpoint] : []) + [.status]
        }
        var bodySpec: BodySpec? { BodySpec(task: task, executor: .startedBy(fallback: executor), token: token) }

        func perform(in execution: ProgramExecution, step: Int) {
            let probe = execution.makeProbe("prepared body of t\(task)")
            let (t, action) = (task, body)
            let on: (any AsyncTaskExecutor)? = execution.executors[executor]
            let token = execution.token(self.token)
            @Sendable func run(_ token: CancellationToken?) throws -> Int {
                try execution.body(task: t, step: step, input: nil, action: action, token: token, probe: probe)
            }
            let prepared: PreparedTask<Int>
            if let returns {
                let existing = returns.task.flatMap { execution.slots.task($0)?.intTask }
                @Sendable func inner(_ token: CancellationToken?) throws -> any AsyncTask<Int> {
                    _ = try run(token)
                    return execution.innerTask(returns, task: t, step: step, existing: existing)
                }
                prepared =
                    noToken
                    ? execution.backend.prepareTask(on: on, token: token) { () throws -> any AsyncTask<Int> in try inner(nil) }
                    : execution.backend.prepareTask(on: on, token: token) { (token: CancellationToken) in try inner(token) }
            } else {
                prepared =
                    noToken
                    ? execution.backend.prepare(on: on, token: token) { () throws -> Int in try run(nil) }
                    : execution.backend.prepare(on: on, token: token) { (token: CancellationToken) in try run(token) }
            }
            execution.slots.putPrepared(task, prepared)
            execution.watchFreed("t\(task)'s prepared task", prepared)
            execution.register(task, .int(prepared.task))
        }

        var dependence: Dependence { .start }
        var madeFromSource: Bool { false }
        var pendingRule: Rule { .c9_3 }

        func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation {
            let result = Self.expectation(task: task, step: step, token: token, body: body, in: model)
            guard let returns, case .outcomes(let allowed, let rule) = result, allowed == [.success(ProgramValues.value(step: step))] else {
                return result
            }
            return model.oracle.returnedOutcome(returns, step: step, in: model, rule: rule == .c9_3 ? .c9_3 : .c2_6)
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

    public static func prepare(task: Int, token: Int?, body: BodyAction, returns: InnerTask? = nil) -> Self {
        .prepare(Prepare(task: task, token: token, body: body, returns: returns))
    }
}
