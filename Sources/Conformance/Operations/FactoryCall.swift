import TaskAPI

extension ProgramOperation {
    /// `t<task> = TaskFactory(backend, executor: e, token: k).<call>`: a factory made with its
    /// initializer, or with `with(executor:)` or `with(token:)` from another; its `backend`,
    /// `executor` and `token` read back; then one of its calls: `run` (a body taking the token,
    /// none, or returning a task), `prepare`, `continueWith`, `continueWithTask`. What it vends
    /// follows the backend's own call's rules exactly (C9.2): the model is that call's.
    public struct FactoryCall: TaskOperation {
        /// How the factory is made.
        public enum Construction: String, Sendable, Hashable {
            case initializer, withExecutor, withToken
        }

        /// What the factory is asked for.
        public enum Call: Sendable, Hashable {
            /// `run`, its body taking the token (`noToken`: none), returning a value or a task.
            case run(noToken: Bool, returns: InnerTask?)
            /// `prepare`: a prepared task the program may start (C9.3).
            case prepare
            /// `continueWith(t<antecedent>)` or (`inner`) `continueWithTask`.
            case continueWith(antecedent: Int, inner: InnerTask?)
        }

        public var task: Int
        public var call: Call
        public var construction: Construction
        public var executor: ExecutorRef
        public var token: Int?
        public var body: BodyAction

        public init(task: Int, call: Call, construction: Construction, executor: ExecutorRef, token: Int?, body: BodyAction) {
            self.task = task
            self.call = call
            self.construction = construction
            self.executor = executor
            self.token = token
            self.body = body
        }

        static let kind = OperationKind.factory
        public var description: String {
            let factory: String
            switch construction {
            case .initializer: factory = "TaskFactory(on: \(executor)\(tokenArgument(token)))"
            case .withExecutor: factory = "TaskFactory(on: default\(tokenArgument(token))).with(executor: \(executor))"
            case .withToken: factory = "TaskFactory(on: \(executor)).with(token: \(token.map { "k\($0)" } ?? ".none"))"
            }
            let made: String
            switch call {
            case .run(let noToken, let returns):
                made = "\(returns == nil ? "run" : "runTask") { \(noToken ? "() in " : "")\(body.rawValue) }" + (returns.map { " -> \($0)" } ?? "")
            case .prepare: made = "prepare { \(body.rawValue) }"
            case .continueWith(let antecedent, let inner):
                made = inner.map { "continueWithTask(t\(antecedent)) { \(body.rawValue) } -> \($0)" } ?? "continueWith(t\(antecedent)) { \(body.rawValue) }"
            }
            return "t\(task) = \(factory).\(made)"
        }
        var operation: ProgramOperation { .factory(self) }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                guard let task = s.id("t"), s.take(" = TaskFactory(on: "), let (construction, executor, token) = factory(&s), s.take(".")
                else { return nil }
                var call: Call
                if s.take("run") {
                    let unwraps = s.take("Task")
                    guard s.take(" "), let (noToken, body, returns) = s.runBody(unwraps: unwraps) else { return nil }
                    return Self(task: task, call: .run(noToken: noToken, returns: returns), construction: construction, executor: executor,
                                token: token, body: body)
                }
                if s.take("prepare { ") {
                    call = .prepare
                } else {
                    guard s.take("continueWith") else { return nil }
                    let unwraps = s.take("Task")
                    guard s.take("(t"), let antecedent = s.number(), s.take(") { ") else { return nil }
                    call = .continueWith(antecedent: antecedent, inner: unwraps ? .new : nil)
                    guard let body = s.oneOf(BodyAction.self), s.take(" }") else { return nil }
                    if unwraps {
                        guard s.take(" -> "), let inner = s.innerTask() else { return nil }
                        call = .continueWith(antecedent: antecedent, inner: inner)
                    }
                    return Self(task: task, call: call, construction: construction, executor: executor, token: token, body: body)
                }
                guard let body = s.oneOf(BodyAction.self), s.take(" }") else { return nil }
                return Self(task: task, call: call, construction: construction, executor: executor, token: token, body: body)
            }
        }

        /// The factory as `description` prints it, after `TaskFactory(on: `.
        private static func factory(_ s: inout TextScanner) -> (Construction, ExecutorRef, Int?)? {
            guard let first = s.executor() else { return nil }
            let token = s.tokenArgument()
            guard s.take(")") else { return nil }
            if s.take(".with(executor: ") {
                guard first == .default, let executor = s.executor(), s.take(")") else { return nil }
                return (.withExecutor, executor, token)
            }
            if s.take(".with(token: ") {
                guard token == nil else { return nil }
                if s.take(".none)") { return (.withToken, first, nil) }
                guard let k = s.id("k"), s.take(")") else { return nil }
                return (.withToken, first, k)
            }
            return (.initializer, first, token)
        }

        static func weight(in program: ProgramBuilder) -> Int { 3 }

        static func generate(into program: inout ProgramBuilder) {
            let construction = [Construction.initializer, .withExecutor, .withToken][program.rng.below(3)]
            var sources: [Int] = []
            var held = false
            func inner(_ probability: Int) -> InnerTask? {
                guard program.rng.chance(probability) else { return nil }
                guard program.rng.chance(50), let existing = program.rng.pick(program.intTasks) else { return .new }
                sources += program.sourcesDependedOn[existing]
                held = held || program.dependsOnHeld[existing]
                return .existing(existing)
            }
            let call: Call
            switch program.rng.weighted([40, 20, program.intTasks.isEmpty ? 0 : 40]) {
            case 0: call = .run(noToken: program.rng.chance(30), returns: inner(35))
            case 1: call = .prepare
            default:
                let antecedent = program.rng.pick(program.intTasks) ?? 0
                sources += program.sourcesDependedOn[antecedent]
                held = held || program.dependsOnHeld[antecedent]
                call = .continueWith(antecedent: antecedent, inner: inner(40))
            }
            let made = FactoryCall(task: program.nextTask, call: call, construction: construction, executor: program.executor(),
                                   token: program.token(), body: program.body())
            if case .prepare = call {
                program.addTask(.factory(made), sources: [made.task], held: true)
                program.unstarted.append(made.task)
            } else {
                program.addTask(.factory(made), sources: sources, held: held)
            }
        }

        /// The backend's own call the factory's stands for: its model, its body, its dependence.
        var equivalent: any TaskOperation {
            switch call {
            case .run(let noToken, let returns):
                return Run(task: task, executor: executor, token: token, body: body, noToken: noToken, returns: returns)
            case .prepare:
                return Prepare(task: task, token: token, body: body, executor: executor)
            case .continueWith(let antecedent, let inner):
                return Chain(task: task, kind: inner.map { .continueWithTask($0) } ?? .continueWith, antecedent: antecedent, executor: executor,
                             token: token, body: body)
            }
        }

        var uses: [Use] { equivalent.uses }
        var createdToken: Int? { nil }
        func renumbered(_ ids: Renumbering) -> Self {
            var copy = self
            copy.task = ids.task(task)
            copy.token = token.map(ids.token)
            switch call {
            case .run(let noToken, let returns): copy.call = .run(noToken: noToken, returns: returns.map { $0.task.map { .existing(ids.task($0)) } ?? .new })
            case .prepare: break
            case .continueWith(let antecedent, let inner):
                copy.call = .continueWith(antecedent: ids.task(antecedent), inner: inner.map { $0.task.map { .existing(ids.task($0)) } ?? .new })
            }
            return copy
        }

        var neverWaits: Bool { true }
        var outsideWork: OutsideWork { .none }
        var blocking: Blocking { .never }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] {
            let made: [EntryPoint]
            switch construction {
            case .initializer: made = [.factoryInit]
            case .withExecutor: made = [.factoryInit, .factoryWithExecutor, .defaultExecutor]
            case .withToken: made = [.factoryInit, .factoryWithToken]
            }
            let vended: [EntryPoint]
            switch call {
            case .run(let noToken, let returns): vended = [returns != nil ? (noToken ? .factoryRunTaskNoToken : .factoryRunTask) : noToken ? .factoryRunNoToken : .factoryRun]
            case .prepare: vended = [.factoryPrepare, .preparedTask]
            case .continueWith(_, let inner): vended = [inner == nil ? .factoryContinueWith : .factoryContinueWithTask]
            }
            return made + vended + [.factoryBackend, .factoryExecutor, .factoryToken] + executor.entryPoints + tokenEntryPoints(token)
                + (body == .checkpoint ? [.tokenCheckpoint] : []) + [.isCurrent, .status]
        }
        var bodySpec: BodySpec? { equivalent.bodySpec }

        func perform(in execution: ProgramExecution, step: Int) {
            let backend = execution.backend
            let executor = execution.executors[self.executor]
            let token = execution.token(token)
            let factory: TaskFactory
            switch construction {
            case .initializer: factory = TaskFactory(backend: backend, executor: executor, token: token)
            case .withExecutor: factory = TaskFactory(backend: backend, executor: execution.executors.defaultExecutor, token: token).with(executor: executor)
            case .withToken: factory = TaskFactory(backend: backend, executor: executor).with(token: token)
            }
            execution.log.append(.factoryMade(step: step, backendOK: factory.backend.name == backend.name, executorOK: factory.executor === executor,
                                              tokenOK: factory.token.canBeCancelled == token.canBeCancelled))
            FactoryVending(call: self, step: step, execution: execution, factory: factory).vend()
        }

        var dependence: Dependence { equivalent.dependence }
        var madeFromSource: Bool { false }
        var pendingRule: Rule { equivalent.pendingRule }

        /// The backend's own call's: a wrong outcome breaks that call's rule.
        func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation {
            equivalent.expectation(step: step, in: model)
        }
    }
}

/// One `FactoryCall` step's call, with the harness's logging body.
private struct FactoryVending {
    let call: ProgramOperation.FactoryCall
    let step: Int
    let execution: ProgramExecution
    let factory: TaskFactory

    func vend() {
        let (execution, t, step, action, ref) = (self.execution, call.task, self.step, call.body, call.executor)
        let probe = execution.makeProbe("factory body of t\(t)")
        let captured = factory.token
        @Sendable func body(_ input: Outcome?, _ token: CancellationToken) throws -> Int {
            try execution.body(task: t, step: step, input: input, action: action, token: token, probe: probe, executor: ref)
        }
        let backend = execution.backend
        let defaultExecutor = execution.executors.defaultExecutor
        @Sendable func inner(_ returns: InnerTask, existing: (any AsyncTask<Int>)?) -> any AsyncTask<Int> {
            if returns == .new { return backend.run(on: defaultExecutor, token: .none) { _ in execution.innerBody(task: t, step: step) } }
            return existing ?? backend.cancelled(as: Int.self)
        }
        switch call.call {
        case .run(let noToken, let returns):
            if let returns {
                let existing = returns.task.flatMap { execution.slots.task($0)?.intTask }
                if noToken {
                    execution.register(t, .int(factory.runTask { () -> any AsyncTask<Int> in
                        _ = try body(nil, captured)
                        return inner(returns, existing: existing)
                    }))
                } else {
                    execution.register(t, .int(factory.runTask { (token: CancellationToken) -> any AsyncTask<Int> in
                        _ = try body(nil, token)
                        return inner(returns, existing: existing)
                    }))
                }
            } else if noToken {
                // A body that takes no token checks the one it captured.
                execution.register(t, .int(factory.run { () throws -> Int in try body(nil, captured) }))
            } else {
                execution.register(t, .int(factory.run { (token: CancellationToken) throws -> Int in try body(nil, token) }))
            }
        case .prepare:
            let prepared = factory.prepare { token in try body(nil, token) }
            execution.slots.putPrepared(t, prepared)
            execution.register(t, .int(prepared.task))
        case .continueWith(let antecedent, let returns):
            guard let antecedentTask = execution.slots.task(antecedent)?.intTask else { return }
            let token = captured
            if let returns {
                let existing = returns.task.flatMap { execution.slots.task($0)?.intTask }
                execution.register(t, .int(factory.continueWithTask(antecedentTask) { completion -> any AsyncTask<Int> in
                    _ = try body(Outcome(completion), token)
                    return inner(returns, existing: existing)
                }))
            } else {
                execution.register(t, .int(factory.continueWith(antecedentTask) { completion in try body(Outcome(completion), token) }))
            }
        }
    }
}
