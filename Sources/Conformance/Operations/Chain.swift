import TaskAPI

extension ProgramOperation {
    /// `t<task> = t<antecedent>.<kind>(on: executor, token: k<token>) { body }`: a continuation,
    /// through one of its call forms (`CallForm`), registered by the driver or from inside a `host`.
    public struct Chain: TaskOperation {
        public var task: Int
        public var kind: ContinuationKind
        public var antecedent: Int
        public var executor: ExecutorRef
        public var token: Int?
        public var body: BodyAction
        public var form: CallForm
        /// Where the continuation is registered from (nil: the driver).
        public var host: Host?

        /// The form is made consistent with the arguments: `finally` takes no token, the
        /// executor form none either, the token form needs one and runs on the default executor.
        public init(task: Int, kind: ContinuationKind, antecedent: Int, executor: ExecutorRef, token: Int?, body: BodyAction,
                    form: CallForm = .requirement, host: Host? = nil) {
            self.task = task
            self.kind = kind
            self.antecedent = antecedent
            self.executor = executor
            self.token = kind.takesToken ? token : nil
            self.body = body
            self.host = host
            // `finally { }` and `finallyTask { }`, the executor form of a kind taking no token, name none.
            let form = CallForm.consistent(form, executor: executor, token: self.token)
            self.form = form == .executor && !kind.takesToken && executor != .default ? .requirement : form
        }

        static let kind = OperationKind.chain
        public var description: String {
            let arguments = form == .executor && !kind.takesToken ? "" : form.arguments(executor: executor, token: token)
            return hostPrefix(host) + "t\(task) = t\(antecedent).\(kind)\(arguments) { \(body.rawValue) }"
        }
        var operation: ProgramOperation { .chain(self) }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                let host = s.hostPrefix()
                guard let task = s.id("t"), s.take(" = "), let antecedent = s.id("t"), s.take("."), let kind = s.continuationKind()
                else { return nil }
                // `finally { }` names no executor.
                guard let (form, executor, token) = s.rest.hasPrefix(" {") ? (.executor, .default, nil) : s.callArguments() else { return nil }
                guard s.take(" "), let body = s.body() else { return nil }
                let chain = Self(task: task, kind: kind, antecedent: antecedent, executor: executor, token: token, body: body, form: form, host: host)
                return chain.form == form ? chain : nil
            }
        }

        static func weight(in program: ProgramBuilder) -> Int { program.intTasks.isEmpty ? 0 : 22 }

        static func generate(into program: inout ProgramBuilder) {
            let hosted = program.rng.chance(10)
            guard let (antecedent, reused) = program.continuationTarget(reuse: hosted ? 0 : 35) else { return }
            let kind = drawKind(&program)
            // The forms that name no executor run on the backend's own default executor, which a
            // controlled run does not schedule: only where programs may use work from outside it.
            var form = [CallForm.requirement, .executor, .token][program.rng.weighted([50, 25, program.usesOutsideWork ? 25 : 0])]
            if form == .executor, !kind.takesToken, !program.usesOutsideWork { form = .requirement }
            var executor = reused ?? program.executor()
            var token = kind.takesToken && form != .executor ? program.token() : nil
            if form == .token, reused == nil { executor = .default }
            if form == .token, token == nil { token = program.rng.pick(program.tokens) }
            let host = hosted ? program.host() : nil
            let (sources, held) = program.dependencies([antecedent] + [kind.inner?.task, host?.antecedent].compactMap { $0 })
            if !hosted { program.lastChain = (antecedent, executor) }
            let chain = Chain(task: program.nextTask, kind: kind, antecedent: antecedent, executor: executor, token: token,
                              body: program.body(), form: form, host: host)
            // A task made inside a host exists once the host ran: no later step takes it.
            program.addTask(.chain(chain), sources: sources, held: held, hidden: hosted)
        }

        /// A kind, with the inner task of the task forms (an existing task or a new one).
        private static func drawKind(_ program: inout ProgramBuilder) -> ContinuationKind {
            let draw = program.rng.weighted([14, 8, 10, 8, 16, 8, 10, 8, 12, 8])
            var inner: InnerTask = .new
            if [1, 4, 6, 9].contains(draw), program.rng.chance(50), let existing = program.rng.pick(program.intTasks) {
                inner = .existing(existing)
            }
            switch draw {
            case 0: return .continueWith
            case 1: return .continueWithTask(inner)
            case 2: return .map
            case 3: return .then
            case 4: return .flatMap(inner)
            case 5: return .recover
            case 6: return .recoverTask(inner)
            case 7: return .catch
            case 8: return .finally
            default: return .finallyTask(inner)
            }
        }

        var uses: [Use] {
            var tasks: [Use] = [.task(antecedent)]
            if let inner = kind.inner?.task { tasks.append(.task(inner)) }
            if let hostTask = host?.antecedent { tasks.append(.task(hostTask)) }
            return tasks + (token.map { [.token($0)] } ?? [])
        }
        var createdToken: Int? { nil }
        func renumbered(_ ids: Renumbering) -> Self {
            Self(task: ids.task(task), kind: kind.renumbered(ids), antecedent: ids.task(antecedent), executor: executor,
                 token: token.map(ids.token), body: body, form: form, host: host?.renumbered(ids))
        }

        var neverWaits: Bool { true }
        /// A form naming no executor hands the body to the backend's own default executor.
        var outsideWork: OutsideWork { namesNoExecutor ? .completes(task: task, within: .seconds(1)) : .none }
        var namesNoExecutor: Bool { form == .token || (form == .executor && !kind.takesToken) }
        var blocking: Blocking { .never }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] {
            kind.entryPoints(form) + executor.entryPoints + tokenEntryPoints(token)
                + (body == .checkpoint ? [.tokenCheckpoint] : []) + (host?.entryPoints ?? []) + [.isCurrent, .status]
        }
        var bodySpec: BodySpec? {
            BodySpec(task: task, executor: .on(executor), token: token, continuation: (antecedent, kind), host: host)
        }

        func perform(in execution: ProgramExecution, step: Int) {
            guard let antecedentTask = execution.slots.task(antecedent)?.intTask else { return }
            let inner = kind.inner?.task.flatMap { execution.slots.task($0)?.intTask }
            let token = execution.token(token)
            let registration = ChainRegistration(chain: self, step: step, execution: execution)
            let t = task
            execution.hosted(host, step: step) {
                execution.register(t, .int(registration.register(on: antecedentTask, inner: inner, token: token)))
            }
        }

        var dependence: Dependence {
            .tasks([antecedent] + (kind.inner?.task.map { [$0] } ?? []) + (host?.antecedent.map { [$0] } ?? []))
        }
        var madeFromSource: Bool { false }
        var pendingRule: Rule { kind.isFinallyTask ? .c3_3 : kind.inner == nil ? .c2_2 : .c2_6 }

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
            let inner = kind.inner.map { inner in
                inner.task.map { oracle.resolvedOrState(model.input($0), task: $0) } ?? .outcome(.success(ProgramValues.innerValue(step: step)))
            }
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
            switch kind.result {
            case .bodyValue:
                return .outcomes([outcome], rule ?? (kind == .continueWith ? .c3_1 : .c3_3))
            case .input:
                return .outcomes([input], rule ?? .c3_3)
            case .innerOutcome, .inputOnceInnerSucceeded:
                switch inner ?? .unknown {
                case .outcome(let innerOutcome):
                    // finallyTask: the original outcome once the returned task succeeded, else its outcome.
                    let taken = kind.result == .innerOutcome || !innerOutcome.isSuccess ? innerOutcome : input
                    return .outcomes([taken], rule ?? (kind.result == .innerOutcome ? .c2_6 : .c3_3))
                case .pending: return .pending
                case .unknown: return .unknown
                }
            }
        }
    }

    public static func chain(
        task: Int, kind: ContinuationKind, antecedent: Int, executor: ExecutorRef, token: Int?, body: BodyAction,
        form: CallForm = .requirement, host: Host? = nil
    ) -> Self {
        .chain(Chain(task: task, kind: kind, antecedent: antecedent, executor: executor, token: token, body: body,
                     form: form, host: host))
    }
}

extension ContinuationKind {
    var isFinallyTask: Bool { if case .finallyTask = self { return true } else { return false } }

    /// The entry point a continuation of this kind calls in `form` (`then` and `catch` have one
    /// form, taking an optional executor and a token).
    func entryPoints(_ form: CallForm) -> [EntryPoint] {
        let inner: [EntryPoint] = inner == .new ? [.run, .defaultExecutor] : []
        func pick(_ requirement: EntryPoint, _ executor: EntryPoint, _ token: EntryPoint) -> EntryPoint {
            switch form {
            case .requirement: return requirement
            case .executor: return executor
            case .token: return token
            }
        }
        switch self {
        case .continueWith: return [pick(.continueWith, .continueWithOn, .continueWithToken)]
        case .continueWithTask: return [pick(.continueWithTask, .continueWithTaskOn, .continueWithTaskToken)] + inner
        case .map: return [pick(.map, .mapOn, .mapToken)]
        case .then: return [.then]
        case .flatMap: return [pick(.flatMap, .flatMapOn, .flatMapToken)] + inner
        case .recover: return [pick(.recover, .recoverOn, .recoverToken)]
        case .recoverTask: return [pick(.recoverTask, .recoverTaskOn, .recoverTaskToken)] + inner
        case .catch: return [.catch]
        case .finally: return [form == .executor ? .finallyDefault : .finally]
        case .finallyTask(let task):
            return [form == .executor ? .finallyTaskDefault : .finallyTask] + (task.task == nil ? inner : [.asVoid])
        }
    }
}

/// Registers one `Chain` step's continuation, of its kind and form, with the harness's logging
/// body; a task form's body returns the inner task (an existing one, or a new one run on the
/// default executor).
private struct ChainRegistration {
    let chain: ProgramOperation.Chain
    let step: Int
    let execution: ProgramExecution

    func register(on antecedent: any AsyncTask<Int>, inner: (any AsyncTask<Int>)?, token: CancellationToken) -> any AsyncTask<Int> {
        let (execution, t, step, action) = (self.execution, chain.task, self.step, chain.body)
        let executor = execution.executors[chain.executor]
        let probe = execution.makeProbe("continuation of t\(t)")
        let ref = chain.executor
        @Sendable func body(_ input: Outcome) throws -> Int {
            try execution.body(task: t, step: step, input: input, action: action, token: token, probe: probe, executor: ref)
        }
        let backend = execution.backend
        let defaultExecutor = execution.executors.defaultExecutor
        let existing = inner ?? backend.cancelled(as: Int.self)
        let isNew = chain.kind.inner == .new
        @Sendable func innerTask() -> any AsyncTask<Int> {
            isNew ? backend.run(on: defaultExecutor, token: .none) { _ in execution.innerBody(task: t, step: step) } : existing
        }
        @Sendable func voidTask() -> any AsyncTask<Void> {
            isNew ? backend.run(on: defaultExecutor, token: .none) { _ in _ = execution.innerBody(task: t, step: step) } : existing.asVoid()
        }
        @Sendable func task(_ input: Outcome) throws -> any AsyncTask<Int> {
            _ = try body(input)
            return innerTask()
        }
        @Sendable func failure(_ error: any Error) -> Outcome { .failure(ErrorValue(error)) }
        let optional: (any Executor)? = executor
        /// The call of the step's form: `requirement` (`on:token:`), `onExecutor` (`on:` an optional
        /// executor), `withToken` (`token:`, the default executor).
        func call(_ requirement: () -> any AsyncTask<Int>, _ onExecutor: () -> any AsyncTask<Int>,
                  _ withToken: () -> any AsyncTask<Int>) -> any AsyncTask<Int> {
            switch chain.form {
            case .requirement: return requirement()
            case .executor: return onExecutor()
            case .token: return withToken()
            }
        }
        let a = antecedent
        switch chain.kind {
        case .continueWith:
            return call({ a.continueWith(on: executor, token: token) { try body(Outcome($0)) } },
                        { a.continueWith(on: optional) { try body(Outcome($0)) } }, { a.continueWith(token: token) { try body(Outcome($0)) } })
        case .continueWithTask:
            return call({ a.continueWithTask(on: executor, token: token) { try task(Outcome($0)) } },
                        { a.continueWithTask(on: optional) { try task(Outcome($0)) } },
                        { a.continueWithTask(token: token) { try task(Outcome($0)) } })
        case .map:
            return call({ a.map(on: executor, token: token) { try body(.success($0)) } }, { a.map(on: optional) { try body(.success($0)) } },
                        { a.map(token: token) { try body(.success($0)) } })
        case .then:
            return call({ a.then(on: executor, token: token) { try body(.success($0)) } }, { a.then(on: optional) { try body(.success($0)) } },
                        { a.then(token: token) { try body(.success($0)) } })
        case .flatMap:
            return call({ a.flatMap(on: executor, token: token) { try task(.success($0)) } },
                        { a.flatMap(on: optional) { try task(.success($0)) } }, { a.flatMap(token: token) { try task(.success($0)) } })
        case .recover:
            return call({ a.recover(on: executor, token: token) { try body(failure($0)) } }, { a.recover(on: optional) { try body(failure($0)) } },
                        { a.recover(token: token) { try body(failure($0)) } })
        case .recoverTask:
            return call({ a.recoverTask(on: executor, token: token) { try task(failure($0)) } },
                        { a.recoverTask(on: optional) { try task(failure($0)) } }, { a.recoverTask(token: token) { try task(failure($0)) } })
        case .catch:
            return call({ a.catch(on: executor, token: token) { try body(failure($0)) } }, { a.catch(on: optional) { try body(failure($0)) } },
                        { a.catch(token: token) { try body(failure($0)) } })
        case .finally:
            let run: @Sendable (Completion<Int>) throws -> Void = { _ = try body(Outcome($0)) }
            return call({ a.finally(on: executor, run) }, { a.finally(run) }, { a.finally(run) })
        case .finallyTask:
            let run: @Sendable (Completion<Int>) throws -> any AsyncTask<Void> = { _ = try body(Outcome($0)); return voidTask() }
            return call({ a.finallyTask(on: executor, run) }, { a.finallyTask(run) }, { a.finallyTask(run) })
        }
    }
}
