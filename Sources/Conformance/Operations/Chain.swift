import TaskAPI

extension ProgramOperation {
    /// `t<task> = t<antecedent>.<kind>(on: executor, token: k<token>) { body }`: a continuation,
    /// through one of its call forms (`CallForm`), registered by the driver or from inside a `host`.
    /// A form that unwraps the task its body returns may be handed it as a `ForeignTask`, a task
    /// of a class the backend does not know, with its outcome (`t5 = t2.flatMap->foreign t3(...)`,
    /// C2.6, contract 1.4; the marks are `ForeignStream`'s).
    public struct Chain: TaskOperation {
        public var task: Int
        public var kind: ContinuationKind
        public var antecedent: Int
        public var executor: ExecutorRef
        public var token: Int?
        public var body: BodyAction
        public var form: CallForm
        /// Where the continuation is registered from (nil: the driver).
        public var host: CallHost?
        /// The body's task is handed the form as a `ForeignTask`: only for a form that unwraps it
        /// (`kind.inner`).
        public var foreignReturned: Bool

        /// The form is made consistent with the arguments: `finally` takes no token, the
        /// executor form none either, the token form needs one and runs on the default executor.
        public init(
            task: Int, kind: ContinuationKind, antecedent: Int, executor: ExecutorRef, token: Int?, body: BodyAction,
            form: CallForm = .requirement, host: CallHost? = nil, foreignReturned: Bool = false
        ) {
            self.task = task
            self.kind = kind
            self.antecedent = antecedent
            self.executor = executor
            self.token = kind.takesToken ? token : nil
            self.body = body
            self.host = host
            self.foreignReturned = foreignReturned && kind.inner != nil
            // `finally { }` and `finallyTask { }`, the executor form of a kind taking no token, name none.
            let form = CallForm.consistent(form, executor: executor, token: self.token)
            self.form = form == .executor && !kind.takesToken && executor != .default ? .requirement : form
        }

        public var description: String {
            let arguments = form == .executor && !kind.takesToken ? "" : form.arguments(executor: executor, token: token)
            return hostPrefix(host)
                + "t\(task) = t\(antecedent).\(kind.text(foreignInner: foreignReturned))\(arguments) { \(body.rawValue) }"
        }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                let host = s.hostPrefix()
                guard let task = s.id("t"), s.take(" = "), let antecedent = s.id("t"), s.take("."),
                    let (kind, foreign) = s.markedContinuationKind()
                else { return nil }
                // `finally { }` names no executor.
                guard let (form, executor, token) = s.rest.hasPrefix(" {") ? (.executor, .default, nil) : s.callArguments() else {
                    return nil
                }
                guard s.take(" "), let body = s.body() else { return nil }
                let chain = Self(
                    task: task, kind: kind, antecedent: antecedent, executor: executor, token: token, body: body, form: form, host: host,
                    foreignReturned: foreign)
                return chain.form == form && chain.foreignReturned == foreign ? chain : nil
            }
        }

        static func weight(in program: ProgramBuilder) -> Int { program.intTasks.isEmpty ? 0 : 22 }

        static func generate(into program: inout ProgramBuilder) {
            let hosted = program.rng.chance(10)
            guard let (antecedent, reused) = program.continuationTarget(reuse: hosted ? 0 : 35) else { return }
            let kind = drawKind(&program, keeping: true)
            // The forms that name no executor run on the backend's own default executor, and a
            // pinned actor on the backend's own actor executor, which a controlled run does not
            // schedule: only where programs may use work from outside it.
            let outside = program.usesOutsideWork
            var form = [CallForm.requirement, .executor, .token, .actor][
                program.rng.weighted([45, 20, outside ? 20 : 0, outside && program.serials > 1 ? 15 : 0])]
            if form == .executor, !kind.takesToken, !outside { form = .requirement }
            var executor = reused ?? program.executor()
            var token = kind.takesToken && form != .executor ? program.token() : nil
            if form == .token, reused == nil { executor = .default }
            if form == .token, token == nil { token = program.rng.pick(program.tokens) }
            if form == .actor { executor = .serial(1) }
            let host = hosted ? program.host(nesting: antecedent) : nil
            let (sources, held) = program.dependencies([antecedent] + [kind.awaited?.task, host?.antecedent].compactMap { $0 })
            if !hosted { program.lastChain = (antecedent, executor) }
            let chain = Chain(
                task: program.nextTask, kind: kind, antecedent: antecedent, executor: executor, token: token,
                body: program.body(), form: form, host: host)
            // A task made inside a host exists once the host ran: no later step takes it.
            program.addTask(.chain(chain), sources: sources, held: held, hidden: hosted)
        }

        /// A kind, with the task the task forms' bodies return (`returnedTask`), and now and then
        /// (`keeping`) a value form given a body returning a task, which it keeps (C2.6).
        static func drawKind(_ program: inout ProgramBuilder, keeping: Bool) -> ContinuationKind {
            let draw = program.rng.weighted([14, 8, 10, 8, 16, 8, 10, 8, 12, 8] + (keeping ? [3, 3, 2] : [0, 0, 0]))
            let returned = [1, 4, 6, 9, 10, 11, 12].contains(draw) ? program.returnedTask().inner : .new
            switch draw {
            case 0: return .continueWith
            case 1: return .continueWithTask(returned)
            case 2: return .map
            case 3: return .then
            case 4: return .flatMap(returned)
            case 5: return .recover
            case 6: return .recoverTask(returned)
            case 7: return .catch
            case 8: return .finally
            case 9: return .finallyTask(returned)
            case 10: return .continueWithKeeping(returned)
            case 11: return .mapKeeping(returned)
            default: return .thenKeeping(returned)
            }
        }

        var uses: [Use] {
            var tasks: [Use] = [.task(antecedent)]
            if let returned = kind.returned?.task { tasks.append(.task(returned)) }
            if let hostTask = host?.antecedent { tasks.append(.task(hostTask)) }
            return tasks + (token.map { [.token($0)] } ?? [])
        }
        func renumbered(_ ids: Renumbering) -> Self {
            Self(
                task: ids.task(task), kind: kind.renumbered(ids), antecedent: ids.task(antecedent), executor: executor,
                token: token.map(ids.token), body: body, form: form, host: host?.renumbered(ids), foreignReturned: foreignReturned)
        }

        /// Now and then (`ForeignStream.stepChance`) a form that unwraps its body's task handed it foreign.
        func markedForeign(_ rng: inout SplitMix64) -> ProgramOperation? {
            guard kind.inner != nil, rng.chance(ForeignStream.stepChance) else { return nil }
            var marked = self
            marked.foreignReturned = true
            return .chain(marked)
        }
        var foreignCount: Int { foreignReturned ? 1 : 0 }
        /// The step with the body's task handed the form as it is.
        var smallerForms: [ProgramOperation] {
            guard foreignReturned else { return [] }
            var plain = self
            plain.foreignReturned = false
            return [.chain(plain)]
        }

        var neverWaits: Bool { true }
        /// A form naming no executor hands the body to the backend's own default executor.
        var outsideWork: OutsideWork { namesNoExecutor ? .completes(task: task, within: .seconds(1)) : .none }
        var namesNoExecutor: Bool { form == .token || (form == .executor && !kind.takesToken) }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] {
            kind.entryPoints(form) + executor.entryPoints + tokenEntryPoints(token)
                + (body == .checkpoint ? [.tokenCheckpoint] : []) + (host?.entryPoints ?? []) + [.isCurrent, .status]
        }
        /// A value form keeping a task: the step's task is the harness's read of its value, pending
        /// while the body runs, not the body's own.
        var bodySpec: BodySpec? {
            BodySpec(
                task: task, executor: .on(executor), token: token, continuation: (antecedent, kind), host: host, runsTask: kind.kept == nil,
                pinned: form == .actor)
        }

        func perform(in execution: ProgramExecution, step: Int) {
            guard let antecedentTask = execution.slots.task(antecedent)?.intTask else { return }
            let inner = kind.returned?.task.flatMap { execution.slots.task($0)?.intTask }
            let token = execution.token(token)
            let registration = ChainRegistration(chain: self, step: step, execution: execution)
            let t = task
            execution.hosted(host, step: step) {
                execution.register(t, .int(registration.register(on: antecedentTask, inner: inner, token: token)))
            }
        }

        var dependence: Dependence {
            .tasks([antecedent] + (kind.awaited?.task.map { [$0] } ?? []) + (host?.antecedent.map { [$0] } ?? []))
        }
        var madeFromSource: Bool { false }
        /// `finallyTask`'s C3.3, but handed a `ForeignTask`: C2.6 (contract 1.4, a task-returning
        /// form takes a task of any class), as every other form that waits for its body's task.
        var pendingRule: Rule { kind.isFinallyTask && !foreignReturned ? .c3_3 : kind.awaited == nil ? .c2_2 : .c2_6 }

        func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation {
            if let gated = model.hostGate(host) { return gated }
            let oracle = model.oracle
            let tokenState = oracle.tokenState(token)
            let before = model.input(antecedent)
            guard let value = oracle.resolved(before, task: antecedent) else {
                if case .pending = before {
                    switch tokenState {
                    case .definite: return .outcomes([.cancelled], .c4_3)
                    case .maybe: return .unknown
                    case .never: return .pending
                    }
                }
                return .unknown
            }
            let inner = kind.awaited.map { oracle.inner($0, step: step, in: model) }
            if oracle.observations.bodies[task] != nil {
                return afterBody(step: step, action: body, input: value, inner: inner, oracle: oracle)
            }
            if kind.runs(on: value) {
                if tokenState != .never { return .outcomes([.cancelled], .c4_3) }
                // Not run (yet): what the body will do; with no token, checkpoint() returns.
                let action = body == .checkpoint ? .returns : body
                return afterBody(step: step, action: action, input: value, inner: inner, oracle: oracle, rule: .c2_1)
            }
            return .outcomes(tokenState == .never ? [value] : unique([value, .cancelled]), .c3_3)
        }

        /// The task's outcome once its body ran with `action` on `input` (C2.6, C3.1, C3.3).
        private func afterBody(
            step: Int, action: BodyAction, input: Outcome, inner: Oracle.Inner?, oracle: Oracle, rule: Rule? = nil
        ) -> Expectation {
            let result = oracle.bodyResult(task, step: step, action: action)
            guard case .outcomes(let allowed, _) = result, let outcome = allowed.first, outcome.isSuccess else {
                return result
            }
            switch kind.settlement {
            case .bodyValue:
                return .outcomes([outcome], rule ?? (kind == .continueWith ? .c3_1 : .c3_3))
            case .keptTask:
                // The very task the body returned, as the value, whatever that task's state (C2.6).
                return .outcomes([outcome], rule ?? .c2_6)
            case .keptTaskOnceCompleted:
                // `then`: that very task as the value once it succeeded, else its outcome (C2.6).
                switch inner ?? .unknown {
                case .outcome(let innerOutcome): return .outcomes([innerOutcome.isSuccess ? outcome : innerOutcome], rule ?? .c2_6)
                case .pending: return .pending
                case .unknown: return .unknown
                }
            case .input:
                return .outcomes([input], rule ?? .c3_3)
            case .innerOutcome, .inputOnceInnerSucceeded:
                switch inner ?? .unknown {
                case .outcome(let innerOutcome):
                    // finallyTask: the original outcome once the returned task succeeded, else its outcome.
                    let taken = kind.settlement == .innerOutcome || !innerOutcome.isSuccess ? innerOutcome : input
                    // `finallyTask` handed a foreign task: C2.6's, as `pendingRule` says.
                    let unwrapRule: Rule = kind.settlement == .innerOutcome || foreignReturned ? .c2_6 : .c3_3
                    return .outcomes([taken], rule ?? unwrapRule)
                case .pending: return .pending
                case .unknown: return .unknown
                }
            }
        }
    }

    public static func chain(
        task: Int, kind: ContinuationKind, antecedent: Int, executor: ExecutorRef, token: Int?, body: BodyAction,
        form: CallForm = .requirement, host: CallHost? = nil, foreignReturned: Bool = false
    ) -> Self {
        .chain(
            Chain(
                task: task, kind: kind, antecedent: antecedent, executor: executor, token: token, body: body,
                form: form, host: host, foreignReturned: foreignReturned))
    }
}

extension ContinuationKind {
    var isFinallyTask: Bool { if case .finallyTask = self { return true } else { return false } }

    /// The entry points a continuation of this kind calls in `form` (`then` and `catch` have one
    /// form, taking an optional executor and a token), with what its body calls to make the task
    /// it returns, and, for a value form keeping a task, the harness's `map` on the inline
    /// executor that reads whether its value is that task.
    func entryPoints(_ form: CallForm) -> [EntryPoint] {
        func pick(_ requirement: EntryPoint, _ executor: EntryPoint, _ token: EntryPoint, _ actor: EntryPoint) -> EntryPoint {
            switch form {
            case .requirement: return requirement
            case .executor: return executor
            case .token: return token
            case .actor: return actor
            }
        }
        let made = returned?.entryPoints ?? []
        let reads: [EntryPoint] = kept == nil ? [] : [.map, .inlineExecutor]
        switch self {
        case .continueWith, .continueWithKeeping:
            return [pick(.continueWith, .continueWithOn, .continueWithToken, .continueWithActor)] + made + reads
        case .continueWithTask: return [pick(.continueWithTask, .continueWithTaskOn, .continueWithTaskToken, .continueWithTaskActor)] + made
        case .map, .mapKeeping: return [pick(.map, .mapOn, .mapToken, .mapActor)] + made + reads
        case .then, .thenKeeping: return [form == .actor ? .thenActor : .then] + made + reads
        case .flatMap: return [pick(.flatMap, .flatMapOn, .flatMapToken, .flatMapActor)] + made
        case .recover: return [pick(.recover, .recoverOn, .recoverToken, .recoverActor)]
        case .recoverTask: return [pick(.recoverTask, .recoverTaskOn, .recoverTaskToken, .recoverTaskActor)] + made
        case .catch: return [form == .actor ? .catchActor : .catch]
        case .finally: return [pick(.finally, .finallyDefault, .finally, .finallyActor)]
        case .finallyTask(let inner):
            return [pick(.finallyTask, .finallyTaskDefault, .finallyTask, .finallyTaskActor)] + made + (inner == .new ? [] : [.asVoid])
        }
    }
}
