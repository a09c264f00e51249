import TaskAPI

extension ProgramOperation {
    /// `t<task> = t<antecedent>.<kind>(on: executor, token: k<token>) { body }`: a continuation,
    /// through the requirement or (`convenience`) the extension taking an optional executor,
    /// registered by the driver or from inside a `host`.
    public struct Chain: TaskOperation {
        public var task: Int
        public var kind: ContinuationKind
        public var antecedent: Int
        public var executor: ExecutorRef
        public var token: Int?
        public var body: BodyAction
        /// The convenience form (`on:` an optional executor) instead of the requirement.
        public var convenience: Bool
        /// Where the continuation is registered from (nil: the driver).
        public var host: Host?

        public init(task: Int, kind: ContinuationKind, antecedent: Int, executor: ExecutorRef, token: Int?, body: BodyAction,
                    convenience: Bool = false, host: Host? = nil) {
            self.task = task
            self.kind = kind
            self.antecedent = antecedent
            self.executor = executor
            self.token = token
            self.body = body
            self.convenience = convenience || !kind.hasRequirementForm
            self.host = host
        }

        static let kind = OperationKind.chain
        public var description: String {
            let on = convenience && kind.hasRequirementForm ? ".some(\(executor))" : "\(executor)"
            return hostPrefix(host) + "t\(task) = t\(antecedent).\(kind)(on: \(on)\(tokenArgument(token))) { \(body.rawValue) }"
        }
        var operation: ProgramOperation { .chain(self) }

        static func weight(in program: ProgramBuilder) -> Int { program.intTasks.isEmpty ? 0 : 22 }

        static func generate(into program: inout ProgramBuilder) {
            let hosted = program.rng.chance(10)
            guard let (antecedent, reused) = program.continuationTarget(reuse: hosted ? 0 : 35) else { return }
            let kind = drawKind(&program)
            let token = kind == .finally || kind.isFinallyTask ? nil : program.token()
            let executor = reused ?? program.executor()
            let host = hosted ? program.host() : nil
            let (sources, held) = program.dependencies([antecedent] + [kind.inner?.task, host?.antecedent].compactMap { $0 })
            if !hosted { program.lastChain = (antecedent, executor) }
            let chain = Chain(task: program.nextTask, kind: kind, antecedent: antecedent, executor: executor, token: token,
                              body: program.body(), convenience: program.rng.chance(40), host: host)
            // A task made inside a host exists once the host ran: no later step takes it.
            program.addTask(.chain(chain), sources: sources, held: held, hidden: hosted)
        }

        /// A kind, with the inner task of the task forms (an existing task or a new one).
        private static func drawKind(_ program: inout ProgramBuilder) -> ContinuationKind {
            let draw = program.rng.weighted([14, 8, 10, 6, 5, 14, 8, 5, 5, 4, 12, 8])
            var inner: InnerTask = .new
            if [1, 4, 5, 7, 9, 11].contains(draw), program.rng.chance(50), let existing = program.rng.pick(program.intTasks) {
                inner = .existing(existing)
            }
            switch draw {
            case 0: return .continueWith
            case 1: return .continueWithTask(inner)
            case 2: return .map
            case 3: return .then
            case 4: return .thenTask(inner)
            case 5: return .flatMap(inner)
            case 6: return .recover
            case 7: return .recoverTask(inner)
            case 8: return .catch
            case 9: return .catchTask(inner)
            case 10: return .finally
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
                 token: token.map(ids.token), body: body, convenience: convenience, host: host?.renumbered(ids))
        }

        var neverWaits: Bool { true }
        var outsideWork: OutsideWork { .none }
        var blocking: Blocking { .never }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] {
            kind.entryPoints(convenience: convenience) + executor.entryPoints + tokenEntryPoints(token)
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
        convenience: Bool = false, host: Host? = nil
    ) -> Self {
        .chain(Chain(task: task, kind: kind, antecedent: antecedent, executor: executor, token: token, body: body,
                     convenience: convenience, host: host))
    }
}

extension ContinuationKind {
    var isFinallyTask: Bool { if case .finallyTask = self { return true } else { return false } }

    /// The entry point a continuation of this kind calls: the requirement, or the convenience
    /// taking an optional executor (`then` and `catch` exist only as conveniences).
    func entryPoints(convenience: Bool) -> [EntryPoint] {
        let inner: [EntryPoint] = inner == .new ? [.run, .defaultExecutor] : []
        switch self {
        case .continueWith: return [convenience ? .continueWithConvenience : .continueWith]
        case .continueWithTask: return [convenience ? .continueWithTaskConvenience : .continueWithTask] + inner
        case .map: return [convenience ? .mapConvenience : .map]
        case .then: return [.then]
        case .thenTask: return [.thenTask] + inner
        case .flatMap: return [convenience ? .flatMapConvenience : .flatMap] + inner
        case .recover: return [convenience ? .recoverConvenience : .recover]
        case .recoverTask: return [convenience ? .recoverTaskConvenience : .recoverTask] + inner
        case .catch: return [.catch]
        case .catchTask: return [.catchTask] + inner
        case .finally: return [convenience ? .finallyConvenience : .finally]
        case .finallyTask(let task): return [convenience ? .finallyTaskConvenience : .finallyTask] + (task.task == nil ? inner : [.asVoid])
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
        let optional: (any Executor)? = executor
        let convenience = chain.convenience
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
        switch chain.kind {
        case .continueWith:
            if convenience { return antecedent.continueWith(on: optional, token: token) { try body(Outcome($0)) } }
            return antecedent.continueWith(on: executor, token: token) { try body(Outcome($0)) }
        case .continueWithTask:
            if convenience { return antecedent.continueWithTask(on: optional, token: token) { try task(Outcome($0)) } }
            return antecedent.continueWithTask(on: executor, token: token) { try task(Outcome($0)) }
        case .map:
            if convenience { return antecedent.map(on: optional, token: token) { try body(.success($0)) } }
            return antecedent.map(on: executor, token: token) { try body(.success($0)) }
        case .then:
            return antecedent.then(on: executor, token: token) { (value: Int) throws -> Int in try body(.success(value)) }
        case .thenTask:
            return antecedent.then(on: executor, token: token) { (value: Int) throws -> any AsyncTask<Int> in try task(.success(value)) }
        case .flatMap:
            if convenience { return antecedent.flatMap(on: optional, token: token) { try task(.success($0)) } }
            return antecedent.flatMap(on: executor, token: token) { try task(.success($0)) }
        case .recover:
            if convenience { return antecedent.recover(on: optional, token: token) { (e: any Error) throws -> Int in try body(failure(e)) } }
            return antecedent.recover(on: executor, token: token) { (e: any Error) throws -> Int in try body(failure(e)) }
        case .recoverTask:
            if convenience {
                return antecedent.recover(on: optional, token: token) { (e: any Error) throws -> any AsyncTask<Int> in try task(failure(e)) }
            }
            return antecedent.recover(on: executor, token: token) { (e: any Error) throws -> any AsyncTask<Int> in try task(failure(e)) }
        case .catch:
            return antecedent.catch(on: executor, token: token) { (e: any Error) throws -> Int in try body(failure(e)) }
        case .catchTask:
            return antecedent.catch(on: executor, token: token) { (e: any Error) throws -> any AsyncTask<Int> in try task(failure(e)) }
        case .finally:
            if convenience { return antecedent.finally(on: optional) { _ = try body(Outcome($0)) } }
            return antecedent.finally(on: executor) { _ = try body(Outcome($0)) }
        case .finallyTask:
            if convenience {
                return antecedent.finallyTask(on: optional) { _ = try body(Outcome($0)); return voidTask() }
            }
            return antecedent.finallyTask(on: executor) { _ = try body(Outcome($0)); return voidTask() }
        }
    }
}
