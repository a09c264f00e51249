import TaskAPI

extension ProgramOperation {
    /// `t<task> = TaskFactory(backend, executor: e, token: k).<call>`: a factory made with its
    /// initializer, or with `with(executor:)` or `with(token:)` from another; its `backend`,
    /// `executor` and `token` read back; then one of the forms it vends (C9.2): `run` and `runTask`
    /// (bodies taking the token or none; `run` keeping a returned task as its value, or with an
    /// async body), `prepare` and `prepareTask`, `retry` and `retryTask`, `delay`, and every
    /// continuation of a task (`continueWith` ... `finallyTask`, `whenComplete`). What it vends
    /// follows the backend's own call's rules exactly: the model, the body and the dependence are
    /// that call's (`equivalent`).
    public struct FactoryCall: TaskOperation {
        /// How the factory is made.
        public enum Construction: String, Sendable, Hashable {
            case initializer, withExecutor, withToken
        }

        /// What the factory is asked for.
        public enum Call: Sendable, Hashable {
            /// `run`, its body taking the token (`noToken`: none), returning a value, a task kept as
            /// the value (`keeps`), or (`runTask`) a task it unwraps (`returns`).
            case run(noToken: Bool, returns: InnerTask?, keeps: InnerTask?)
            /// `run` with an async body (C9.6).
            case runAsync
            /// `prepare`, or `prepareTask` (`returns`): a prepared task the program may start (C9.3).
            case prepare(noToken: Bool, returns: InnerTask?)
            /// `retry`, or `retryTask` (`taskForm`), as `Retry` with no backoff and no `while`.
            case retry(attempts: Int, failures: Int, taskForm: Bool, noToken: Bool)
            /// `delay` under the factory's token.
            case delay(microseconds: Int)
            /// A continuation of `t<antecedent>` of this kind (no value form keeping a task).
            case continuation(antecedent: Int, kind: ContinuationKind)
            /// `whenComplete(t<antecedent>)`, its echo the task (as `Observe`).
            case whenComplete(antecedent: Int)
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
            switch call {
            // No body of the program's: the text shows none.
            case .delay, .whenComplete: self.body = .returns
            case .run, .runAsync, .prepare, .retry: self.body = body
            case .continuation(let antecedent, let kind):
                self.body = body
                // The factory vends no value form keeping a task: its value form is meant.
                switch kind {
                case .continueWithKeeping: self.call = .continuation(antecedent: antecedent, kind: .continueWith)
                case .mapKeeping: self.call = .continuation(antecedent: antecedent, kind: .map)
                case .thenKeeping: self.call = .continuation(antecedent: antecedent, kind: .then)
                case .continueWith, .continueWithTask, .map, .then, .flatMap, .recover, .recoverTask, .catch, .finally, .finallyTask: break
                }
            }
        }

        public var description: String {
            let factory: String
            switch construction {
            case .initializer: factory = "TaskFactory(on: \(executor)\(tokenArgument(token)))"
            case .withExecutor: factory = "TaskFactory(on: default\(tokenArgument(token))).with(executor: \(executor))"
            case .withToken: factory = "TaskFactory(on: \(executor)).with(token: \(token.map { "k\($0)" } ?? ".none"))"
            }
            return "t\(task) = \(factory).\(made)"
        }

        /// The call as the step prints it, after the factory.
        private var made: String {
            let action = body.rawValue
            switch call {
            case .run(let noToken, let returns, let keeps):
                return "\(returns == nil ? "run" : "runTask") { \(noToken ? "() in " : "")\(action) }"
                    + (returns.map { " -> \($0)" } ?? keeps.map { " => \($0)" } ?? "")
            case .runAsync: return "run { async \(action) }"
            case .prepare(let noToken, let returns):
                return "\(returns == nil ? "prepare" : "prepareTask") { \(noToken ? "() in " : "")\(action) }"
                    + (returns.map { " -> \($0)" } ?? "")
            case .retry(let attempts, let failures, let taskForm, let noToken):
                return
                    "\(taskForm ? "retryTask" : "retry")(attempts: \(attempts)) { \(noToken ? "() in " : "")fails \(failures)×, then \(action) }"
            case .delay(let microseconds): return "delay(\(microseconds)us)"
            case .continuation(let antecedent, let kind): return "\(kind)(t\(antecedent)) { \(action) }"
            case .whenComplete(let antecedent): return "whenComplete(t\(antecedent)) { echo }"
            }
        }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                guard let task = s.id("t"), s.take(" = TaskFactory(on: "), let (construction, executor, token) = factory(&s), s.take("."),
                    let (call, body) = madeCall(&s)
                else { return nil }
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

        /// The call as `made` prints it.
        private static func madeCall(_ s: inout TextScanner) -> (Call, BodyAction)? {
            if s.take("run { async ") {
                guard let body = s.oneOf(BodyAction.self), s.take(" }") else { return nil }
                return (.runAsync, body)
            }
            for (name, prepare) in [("run", false), ("prepare", true)] where s.take(name) {
                let unwraps = s.take("Task")
                guard s.take(" "), let read = s.runBody(unwraps: unwraps), !prepare || read.keeps == nil else { return nil }
                return (
                    prepare
                        ? .prepare(noToken: read.noToken, returns: read.returns)
                        : .run(noToken: read.noToken, returns: read.returns, keeps: read.keeps), read.body
                )
            }
            if s.take("retry") {
                let taskForm = s.take("Task")
                guard s.take("(attempts: "), let attempts = s.number(), s.take(") { ") else { return nil }
                let noToken = s.take("() in ")
                guard s.take("fails "), let failures = s.number(), s.take("×, then "), let body = s.oneOf(BodyAction.self), s.take(" }")
                else { return nil }
                return (.retry(attempts: attempts, failures: failures, taskForm: taskForm, noToken: noToken), body)
            }
            if s.take("delay(") {
                guard let microseconds = s.microseconds(), s.take(")") else { return nil }
                return (.delay(microseconds: microseconds), .returns)
            }
            if s.take("whenComplete(t") {
                guard let antecedent = s.number(), s.take(") { echo }") else { return nil }
                return (.whenComplete(antecedent: antecedent), .returns)
            }
            guard let kind = s.continuationKind(), kind.kept == nil, s.take("(t"), let antecedent = s.number(), s.take(") "),
                let body = s.body()
            else { return nil }
            return (.continuation(antecedent: antecedent, kind: kind), body)
        }

        static func weight(in program: ProgramBuilder) -> Int { 5 }

        static func generate(into program: inout ProgramBuilder) {
            let construction = [Construction.initializer, .withExecutor, .withToken][program.rng.below(3)]
            let (executor, token) = (program.executor(), program.token())
            var body = program.body()
            let tasks = program.intTasks.isEmpty ? 0 : 1
            let outside = program.usesOutsideWork ? 1 : 0
            let draw = program.rng.weighted([16, 6, 12, 10, 4 * outside, 4 * outside, 40 * tasks, 8 * tasks])
            let call: Call
            var (sources, held) = ([Int](), false)
            switch draw {
            case 0, 1:
                var (returns, keeps): (InnerTask?, InnerTask?) = (nil, nil)
                if draw == 1 {
                    let drawn = program.returnedTask()
                    if program.rng.chance(30) { keeps = drawn.inner } else { (returns, sources, held) = drawn }
                }
                call = .run(noToken: program.rng.chance(30), returns: returns, keeps: keeps)
            case 2:
                // As `Prepare`: the task a prepareTask body returns completes without the harness.
                var returns: InnerTask?
                if program.rng.chance(40) {
                    let drawn = program.returnedTask()
                    returns = drawn.inner.task.map({ program.completesEarly($0) }) == false ? .new : drawn.inner
                    if returns == drawn.inner { sources = drawn.sources }
                }
                call = .prepare(noToken: program.rng.chance(30), returns: returns)
            case 3:
                call = .retry(
                    attempts: program.rng.int(in: 0...3), failures: program.rng.int(in: 0...3), taskForm: program.rng.chance(50),
                    noToken: program.rng.chance(30))
            case 4: call = .runAsync
            case 5: call = .delay(microseconds: program.rng.int(in: 0...2000))
            case 6:
                let antecedent = program.rng.pick(program.intTasks) ?? 0
                let kind = ProgramOperation.Chain.drawKind(&program, keeping: false)
                (sources, held) = program.dependencies([antecedent] + (kind.inner?.task.map { [$0] } ?? []))
                call = .continuation(antecedent: antecedent, kind: kind)
            default:
                let antecedent = program.rng.pick(program.intTasks) ?? 0
                (sources, held) = program.dependencies([antecedent])
                call = .whenComplete(antecedent: antecedent)
            }
            // As `Prepare`: a prepared body that takes no token has no checkpoint, since `cancel()`
            // reaches the body only through the prepared task's token (a checkpoint there read the
            // driver's, and a cancel before the body ran was judged a C4.4 break: a false alarm).
            if case .prepare(noToken: true, _) = call, body == .checkpoint { body = .returns }
            let made = FactoryCall(
                task: program.nextTask, call: call, construction: construction, executor: executor, token: token, body: body)
            switch call {
            case .prepare:
                program.addTask(.factory(made), sources: [made.task] + sources, held: true)
                program.unstarted.append(made.task)
            case .delay: program.addTask(.factory(made), sources: [], held: false, intValued: false)
            case .run, .runAsync, .retry, .continuation, .whenComplete: program.addTask(.factory(made), sources: sources, held: held)
            }
        }

        /// The backend's own call the factory's stands for: its model, its body, its dependence.
        var equivalent: any TaskOperation {
            switch call {
            case .run(let noToken, let returns, let keeps):
                return Run(task: task, executor: executor, token: token, body: body, noToken: noToken, returns: returns, keeps: keeps)
            case .runAsync: return RunAsync(task: task, token: token, body: body)
            case .prepare(let noToken, let returns):
                return Prepare(task: task, token: token, body: body, executor: executor, noToken: noToken, returns: returns)
            case .retry(let attempts, let failures, let taskForm, let noToken):
                return Retry(
                    task: task, attempts: attempts, failures: failures, body: body, executor: executor, token: token, taskForm: taskForm,
                    noToken: noToken)
            case .delay(let microseconds): return Delay(task: task, microseconds: microseconds, token: token)
            case .continuation(let antecedent, let kind):
                return Chain(task: task, kind: kind, antecedent: antecedent, executor: executor, token: token, body: body)
            case .whenComplete(let antecedent): return Observe(task: task, antecedent: antecedent, executor: executor)
            }
        }

        /// The equivalent call's, and the factory's token, which every form holds (a `finally` or a
        /// `whenComplete` does not use it).
        var uses: [Use] {
            let uses = equivalent.uses
            guard let token, !uses.contains(.token(token)) else { return uses }
            return uses + [.token(token)]
        }
        func renumbered(_ ids: Renumbering) -> Self {
            var copy = self
            copy.task = ids.task(task)
            copy.token = token.map(ids.token)
            switch call {
            case .run(let noToken, let returns, let keeps):
                copy.call = .run(noToken: noToken, returns: returns?.renumbered(ids), keeps: keeps?.renumbered(ids))
            case .prepare(let noToken, let returns): copy.call = .prepare(noToken: noToken, returns: returns?.renumbered(ids))
            case .continuation(let antecedent, let kind):
                copy.call = .continuation(antecedent: ids.task(antecedent), kind: kind.renumbered(ids))
            case .whenComplete(let antecedent): copy.call = .whenComplete(antecedent: ids.task(antecedent))
            case .runAsync, .retry, .delay: break
            }
            return copy
        }

        var neverWaits: Bool { equivalent.neverWaits }
        var outsideWork: OutsideWork { equivalent.outsideWork }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] {
            let made: [EntryPoint]
            switch construction {
            case .initializer: made = [.factoryInit]
            case .withExecutor: made = [.factoryInit, .factoryWithExecutor, .defaultExecutor]
            case .withToken: made = [.factoryInit, .factoryWithToken]
            }
            return made + vended + [.factoryBackend, .factoryExecutor, .factoryToken] + executor.entryPoints + tokenEntryPoints(token)
                + (body == .checkpoint ? [.tokenCheckpoint] : []) + [.isCurrent, .status]
        }

        /// The factory's own entry point for the call, and what the body calls.
        private var vended: [EntryPoint] {
            switch call {
            case .run(let noToken, let returns, let keeps):
                let call: EntryPoint =
                    returns == nil ? (noToken ? .factoryRunNoToken : .factoryRun) : (noToken ? .factoryRunTaskNoToken : .factoryRunTask)
                return [call] + ((returns ?? keeps)?.entryPoints ?? []) + (keeps == nil ? [] : [.map, .inlineExecutor])
            case .runAsync: return [.factoryRunAsync]
            case .prepare(let noToken, let returns):
                let call: EntryPoint =
                    returns == nil
                    ? (noToken ? .factoryPrepareNoToken : .factoryPrepare)
                    : (noToken ? .factoryPrepareTaskNoToken : .factoryPrepareTask)
                return [call, .preparedTask] + (returns?.entryPoints ?? [])
            case .retry(_, _, let taskForm, let noToken):
                return taskForm
                    ? [noToken ? .factoryRetryTaskNoToken : .factoryRetryTask, .completed]
                    : [noToken ? .factoryRetryNoToken : .factoryRetry]
            case .delay: return [.factoryDelay]
            case .continuation(_, let kind): return kind.factoryEntryPoints
            case .whenComplete: return [.factoryWhenComplete]
            }
        }
        var bodySpec: BodySpec? { equivalent.bodySpec }
        /// A factory's `delay` is a delay: its timer is judged (C5.4) and diagnosed as one.
        var timedCompletion: TimedCompletion? { equivalent.timedCompletion }

        func perform(in execution: ProgramExecution, step: Int) {
            let backend = execution.backend
            let executor = execution.executors[self.executor]
            let token = execution.token(token)
            let factory: TaskFactory
            switch construction {
            case .initializer: factory = TaskFactory(backend: backend, executor: executor, token: token)
            case .withExecutor:
                factory = TaskFactory(backend: backend, executor: execution.executors.defaultExecutor, token: token).with(
                    executor: executor)
            case .withToken: factory = TaskFactory(backend: backend, executor: executor).with(token: token)
            }
            execution.log.append(
                .factoryMade(
                    step: step, backendOK: factory.backend.name == backend.name, executorOK: factory.executor === executor,
                    tokenOK: factory.token.canBeCancelled == token.canBeCancelled))
            FactoryVending(call: self, step: step, execution: execution, factory: factory).vend()
        }

        var dependence: Dependence { equivalent.dependence }
        var madeFromSource: Bool { equivalent.madeFromSource }
        var pendingRule: Rule { equivalent.pendingRule }

        /// The backend's own call's: a wrong outcome breaks that call's rule.
        func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation {
            equivalent.expectation(step: step, in: model)
        }
    }
}

extension ContinuationKind {
    /// The `TaskFactory` form of this continuation, with what its body calls (C9.2).
    var factoryEntryPoints: [EntryPoint] {
        let made = returned?.entryPoints ?? []
        switch self {
        case .continueWith, .continueWithKeeping: return [.factoryContinueWith]
        case .continueWithTask: return [.factoryContinueWithTask] + made
        case .map, .mapKeeping: return [.factoryMap]
        case .then, .thenKeeping: return [.factoryThen]
        case .flatMap: return [.factoryFlatMap] + made
        case .recover: return [.factoryRecover]
        case .recoverTask: return [.factoryRecoverTask] + made
        case .catch: return [.factoryCatch]
        case .finally: return [.factoryFinally]
        case .finallyTask(let inner): return [.factoryFinallyTask] + made + (inner == .new ? [] : [.asVoid])
        }
    }
}
