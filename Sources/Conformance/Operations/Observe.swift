import TaskAPI

extension ProgramOperation {
    /// `t<task> = t<antecedent>.whenComplete(on: executor) { echo }`: the protocol's primitive,
    /// called directly (or its convenience, on the default executor), by the driver or from
    /// inside a `host`. Its body completes a source of the harness's, task `t<task>`, with the
    /// outcome it got, so the echo is modelled, waited for and diagnosed like any task: it must
    /// be the antecedent's outcome (C2.2), delivered once (C2.1), on its executor (C2.3, C2.5), in
    /// registration order (C2.4).
    public struct Observe: TaskOperation {
        public var task: Int
        public var antecedent: Int
        public var executor: ExecutorRef
        /// `whenComplete(_:)`, on the default executor (the backend's own, not the program's).
        public var convenience: Bool
        public var host: Host?

        public init(task: Int, antecedent: Int, executor: ExecutorRef, convenience: Bool = false, host: Host? = nil) {
            self.task = task
            self.antecedent = antecedent
            self.executor = convenience ? .default : executor
            self.convenience = convenience
            self.host = host
        }

        static let kind = OperationKind.observe
        public var description: String {
            hostPrefix(host) + "t\(task) = t\(antecedent).whenComplete\(convenience ? "" : "(on: \(executor))") { echo }"
        }
        var operation: ProgramOperation { .observe(self) }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                let host = s.hostPrefix()
                guard let task = s.id("t"), s.take(" = "), let antecedent = s.id("t"), s.take(".whenComplete") else { return nil }
                var executor = ExecutorRef.default
                let convenience = !s.take("(on: ")
                if !convenience {
                    guard let on = s.executor(), s.take(")") else { return nil }
                    executor = on
                }
                guard s.take(" { echo }") else { return nil }
                return Self(task: task, antecedent: antecedent, executor: executor, convenience: convenience, host: host)
            }
        }

        static func weight(in program: ProgramBuilder) -> Int { program.intTasks.isEmpty ? 0 : 5 }

        /// Often on a task just observed on the same executor (C2.4's order); the convenience, which
        /// uses the backend's default executor behind the harness's back, only where programs may
        /// use work from outside a controlled run.
        static func generate(into program: inout ProgramBuilder) {
            let hosted = program.rng.chance(25)
            guard let (antecedent, reused) = program.continuationTarget(reuse: hosted ? 0 : 40) else { return }
            var executor = reused ?? (program.rng.chance(35) ? .inline : program.executor())
            let convenience = program.usesOutsideWork && !hosted && program.rng.chance(15)
            if convenience { executor = .default }
            let host = hosted ? program.host() : nil
            let (sources, held) = program.dependencies([antecedent] + (host?.antecedent.map { [$0] } ?? []))
            if !hosted { program.lastChain = (antecedent, executor) }
            program.addTask(.observe(Observe(task: program.nextTask, antecedent: antecedent, executor: executor, convenience: convenience,
                                             host: host)), sources: sources, held: held, hidden: hosted)
        }

        var uses: [Use] { [.task(antecedent)] + (host?.antecedent.map { [.task($0)] } ?? []) }
        var createdToken: Int? { nil }
        func renumbered(_ ids: Renumbering) -> Self {
            Self(task: ids.task(task), antecedent: ids.task(antecedent), executor: executor, convenience: convenience,
                 host: host?.renumbered(ids))
        }

        var neverWaits: Bool { true }
        var outsideWork: OutsideWork { .none }
        var blocking: Blocking { .never }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] {
            (convenience ? [.whenComplete] : [.whenCompleteOn] + executor.entryPoints) + (host?.entryPoints ?? []) + [.isCurrent]
        }
        var bodySpec: BodySpec? {
            BodySpec(task: task, executor: .on(executor), token: nil, continuation: (antecedent, .continueWith), host: host, runsTask: false)
        }

        /// The echo's source is made and registered now; the observer is registered where the
        /// host says.
        func perform(in execution: ProgramExecution, step: Int) {
            guard let antecedentTask = execution.slots.task(antecedent)?.intTask else { return }
            let echo = execution.backend.makeSource(of: Int.self)
            execution.register(task, .int(echo.task), source: nil)
            let probe = execution.makeProbe("observer t\(task)")
            let (t, ref, convenience) = (task, executor, convenience)
            let executor = execution.executors[ref]
            let observer: @Sendable (Completion<Int>) -> Void = { completion in
                _ = try? execution.body(task: t, step: step, input: Outcome(completion), action: .returns, token: nil, probe: probe,
                                        executor: ref)
                echo.tryComplete(completion)
            }
            execution.hosted(host, step: step) {
                if convenience { antecedentTask.whenComplete(observer) } else { antecedentTask.whenComplete(on: executor, observer) }
            }
        }

        var dependence: Dependence { .tasks([antecedent] + (host?.antecedent.map { [$0] } ?? [])) }
        var madeFromSource: Bool { true }
        var pendingRule: Rule { .c2_2 }

        /// The antecedent's outcome, once it has one (C2.2).
        func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation {
            if let gated = model.hostGate(host) { return gated }
            switch model.oracle.resolvedOrState(model.input(antecedent), task: antecedent) {
            case .outcome(let outcome): return .outcomes([outcome], .c2_2)
            case .pending: return .pending
            case .unknown: return .unknown
            }
        }
    }

    public static func observe(task: Int, antecedent: Int, executor: ExecutorRef, host: Host? = nil) -> Self {
        .observe(Observe(task: task, antecedent: antecedent, executor: executor, host: host))
    }
}
