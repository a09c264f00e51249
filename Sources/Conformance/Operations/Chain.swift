import TaskAPI

extension ProgramOperation {
    /// `t<task> = t<antecedent>.<kind>(on: executor, token: k<token>) { body }`: a continuation.
    public struct Chain: TaskOperation {
        public var task: Int
        public var kind: ContinuationKind
        public var antecedent: Int
        public var executor: ExecutorRef
        public var token: Int?
        public var body: BodyAction

        public init(task: Int, kind: ContinuationKind, antecedent: Int, executor: ExecutorRef, token: Int?, body: BodyAction) {
            self.task = task
            self.kind = kind
            self.antecedent = antecedent
            self.executor = executor
            self.token = token
            self.body = body
        }

        static let kind = OperationKind.chain
        public var description: String {
            "t\(task) = t\(antecedent).\(kind)(on: \(executor)\(tokenArgument(token))) { \(body.rawValue) }"
        }
        var operation: ProgramOperation { .chain(self) }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                guard let task = s.id("t"), s.take(" = "), let antecedent = s.id("t"), s.take("."), let kind = s.continuationKind(),
                      s.take("(on: "), let executor = s.executor() else { return nil }
                let token = s.tokenArgument()
                guard s.take(") "), let body = s.body() else { return nil }
                return Self(task: task, kind: kind, antecedent: antecedent, executor: executor, token: token, body: body)
            }
        }

        static func weight(in program: ProgramBuilder) -> Int { program.intTasks.isEmpty ? 0 : 22 }

        static func generate(into program: inout ProgramBuilder) {
            let reuse = program.lastChain.flatMap { last in
                program.intTasks.contains(last.antecedent) && program.rng.chance(35) ? last : nil
            }
            guard let antecedent = reuse?.antecedent ?? program.rng.pick(program.intTasks) else { return }
            var sources = program.sourcesDependedOn[antecedent]
            var held = program.dependsOnHeld[antecedent]
            let kind: ContinuationKind
            switch program.rng.weighted([20, 12, 8, 10, 10, 12, 8, 20]) {
            case 0: kind = .continueWith
            case 1: kind = .map
            case 2: kind = .then
            case 3:
                let inner = program.rng.pick(program.intTasks) ?? antecedent
                sources += program.sourcesDependedOn[inner]
                held = held || program.dependsOnHeld[inner]
                kind = .flatMapExisting(inner)
            case 4: kind = .flatMapNew
            case 5: kind = .recover
            case 6: kind = .catch
            default: kind = .finally
            }
            let token = kind == .finally ? nil : program.token()
            let executor = reuse?.executor ?? program.executor()
            program.lastChain = (antecedent, executor)
            let chain = Chain(task: program.nextTask, kind: kind, antecedent: antecedent, executor: executor, token: token,
                              body: program.body())
            program.addTask(.chain(chain), sources: sources, held: held)
        }

        var uses: [Use] {
            var tasks: [Use] = [.task(antecedent)]
            if case .flatMapExisting(let inner) = kind { tasks.append(.task(inner)) }
            return tasks + (token.map { [.token($0)] } ?? [])
        }
        var createdToken: Int? { nil }
        func renumbered(_ ids: Renumbering) -> Self {
            var newKind = kind
            if case .flatMapExisting(let inner) = kind { newKind = .flatMapExisting(ids.task(inner)) }
            return Self(task: ids.task(task), kind: newKind, antecedent: ids.task(antecedent), executor: executor,
                        token: token.map(ids.token), body: body)
        }

        var neverWaits: Bool { true }
        var outsideWork: OutsideWork { .none }
        var blocking: Blocking { .never }
        var registersOrCompletes: Bool { true }

        func perform(in execution: ProgramExecution, step: Int) {
            guard let antecedentTask = execution.slots.task(antecedent)?.intTask else { return }
            var inner: (any AsyncTask<Int>)?
            if case .flatMapExisting(let id) = kind { inner = execution.slots.task(id)?.intTask }
            let made = ChainRegistration(chain: self, step: step, execution: execution)
                .register(on: antecedentTask, inner: inner, token: execution.token(token))
            execution.register(task, .int(made))
        }

        var dependence: Dependence {
            if case .flatMapExisting(let inner) = kind { return .tasks([antecedent, inner]) }
            return .tasks([antecedent])
        }
        var pendingRule: Rule {
            if case .flatMapExisting = kind { return .c2_6 }
            return .c2_2
        }

        func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation {
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
            var inner: Oracle.Inner?
            if case .flatMapExisting(let id) = kind { inner = oracle.resolvedOrState(model.input(id), task: id) }
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
            switch kind.semantic {
            case .continueWith, .map, .recover, .then, .catch:
                return .outcomes([outcome], rule ?? (kind == .continueWith ? .c3_1 : .c3_3))
            case .finally:
                return .outcomes([input], rule ?? .c3_3)
            case .flatMapNew:
                return .outcomes([.success(ProgramValues.innerValue(step: step))], rule ?? .c2_6)
            case .flatMapExisting:
                switch inner ?? .unknown {
                case .outcome(let innerOutcome): return .outcomes([innerOutcome], rule ?? .c2_6)
                case .pending: return .pending
                case .unknown: return .unknown
                }
            }
        }
    }

    public static func chain(
        task: Int, kind: ContinuationKind, antecedent: Int, executor: ExecutorRef, token: Int?, body: BodyAction
    ) -> Self {
        .chain(Chain(task: task, kind: kind, antecedent: antecedent, executor: executor, token: token, body: body))
    }
}

/// Registers one `Chain` step's continuation, of its kind, with the harness's logging body.
private struct ChainRegistration {
    let chain: ProgramOperation.Chain
    let step: Int
    let execution: ProgramExecution

    func register(on antecedent: any AsyncTask<Int>, inner: (any AsyncTask<Int>)?, token: CancellationToken) -> any AsyncTask<Int> {
        let (execution, t, step, action) = (self.execution, chain.task, self.step, chain.body)
        let executor = execution.executors[chain.executor]
        let probe = execution.makeProbe("continuation of t\(t)")
        @Sendable func body(_ input: Outcome) throws -> Int {
            try execution.body(task: t, step: step, input: input, action: action, token: token, probe: probe)
        }
        switch chain.kind {
        case .continueWith:
            return antecedent.continueWith(on: executor, token: token) { try body(Outcome($0)) }
        case .map:
            return antecedent.map(on: executor, token: token) { try body(.success($0)) }
        case .then:
            return antecedent.then(on: executor, token: token) { (value: Int) throws -> Int in try body(.success(value)) }
        case .flatMapExisting:
            let existing = inner ?? execution.backend.cancelled(as: Int.self)
            return antecedent.flatMap(on: executor, token: token) { value in
                _ = try body(.success(value))
                return existing
            }
        case .flatMapNew:
            let backend = execution.backend
            let defaultExecutor = execution.executors.defaultExecutor
            return antecedent.flatMap(on: executor, token: token) { value in
                _ = try body(.success(value))
                return backend.run(on: defaultExecutor, token: .none) { _ in execution.innerBody(task: t, step: step) }
            }
        case .recover:
            return antecedent.recover(on: executor, token: token) { try body(.failure(ErrorValue($0))) }
        case .catch:
            return antecedent.catch(on: executor, token: token) { try body(.failure(ErrorValue($0))) }
        case .finally:
            return antecedent.finally(on: executor) { _ = try body(Outcome($0)) }
        }
    }
}
