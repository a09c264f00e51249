import TaskAPI

extension ProgramOperation {
    /// `t<task> = t<antecedent>.whenComplete(on: executor) { echo }`: the protocol's primitive,
    /// called directly (or its convenience, on the default executor, or on the program's actor
    /// pinned to a serial executor, C9.10), by the driver or from inside a `host`. Its body completes a source of the harness's, task `t<task>`, with the
    /// outcome it got, so the echo is modelled, waited for and diagnosed like any task: it must
    /// be the antecedent's outcome (C2.2), delivered once (C2.1), on its executor (C2.3, C2.5), in
    /// registration order (C2.4).
    public struct Observe: TaskOperation {
        public var task: Int
        public var antecedent: Int
        public var executor: ExecutorRef
        /// `whenComplete(_:)`, on the default executor (the backend's own, not the program's).
        public var convenience: Bool
        /// `whenComplete(on: actor)`: the actor pinned to `executor`, an isolated body (C9.10).
        public var pinned: Bool
        public var host: CallHost?

        public init(
            task: Int, antecedent: Int, executor: ExecutorRef, convenience: Bool = false, pinned: Bool = false, host: CallHost? = nil
        ) {
            self.task = task
            self.antecedent = antecedent
            self.executor = convenience ? .default : executor
            self.convenience = convenience
            self.pinned = pinned && !convenience && executor.isActorExecutor
            self.host = host
        }

        public var description: String {
            let on = convenience ? "" : pinned ? "(on: actor(\(executor)))" : "(on: \(executor))"
            return hostPrefix(host) + "t\(task) = t\(antecedent).whenComplete\(on) { echo }"
        }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                let host = s.hostPrefix()
                guard let task = s.id("t"), s.take(" = "), let antecedent = s.id("t"), s.take(".whenComplete") else { return nil }
                var executor = ExecutorRef.default
                let convenience = !s.take("(on: ")
                let pinned = !convenience && s.take("actor(")
                if !convenience {
                    guard let on = s.executor(), s.take(pinned ? "))" : ")") else { return nil }
                    executor = on
                }
                guard s.take(" { echo }") else { return nil }
                let observe = Self(
                    task: task, antecedent: antecedent, executor: executor, convenience: convenience, pinned: pinned, host: host)
                return observe.pinned == pinned ? observe : nil
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
            // On the actor pinned to a serial executor: where programs use the backend's own
            // executors (a controlled run wraps them, and the actor needs the backend's).
            var pinned = false
            if !convenience, program.usesOutsideWork, program.serials > 1, program.rng.chance(25) {
                (pinned, executor) = (true, .serial(1))
            }
            let host = hosted ? program.host(nesting: antecedent) : nil
            let (sources, held) = program.dependencies([antecedent] + (host?.antecedent.map { [$0] } ?? []))
            if !hosted { program.lastChain = (antecedent, executor) }
            program.addTask(
                .observe(
                    Observe(
                        task: program.nextTask, antecedent: antecedent, executor: executor, convenience: convenience,
                        pinned: pinned, host: host)), sources: sources, held: held, hidden: hosted)
        }

        var uses: [Use] { [.task(antecedent)] + (host?.antecedent.map { [.task($0)] } ?? []) }
        func renumbered(_ ids: Renumbering) -> Self {
            Self(
                task: ids.task(task), antecedent: ids.task(antecedent), executor: executor, convenience: convenience, pinned: pinned,
                host: host?.renumbered(ids))
        }

        var neverWaits: Bool { true }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] {
            (convenience ? [.whenComplete] : [pinned ? .whenCompleteActor : .whenCompleteOn] + executor.entryPoints)
                + (host?.entryPoints ?? [])
                + [.isCurrent]
        }
        var bodySpec: BodySpec? {
            BodySpec(
                task: task, executor: .on(executor), token: nil, continuation: (antecedent, .continueWith), host: host, runsTask: false,
                pinned: pinned)
        }

        /// The echo's source is made and registered now; the observer is registered where the
        /// host says.
        func perform(in execution: ProgramExecution, step: Int) {
            guard let antecedentTask = execution.slots.task(antecedent)?.intTask else { return }
            let observer = Self.observer(task: task, executor: executor, step: step, in: execution)
            let (ref, convenience, pinned) = (executor, convenience, pinned)
            let executor = execution.executors[ref]
            execution.hosted(host, step: step) {
                if convenience {
                    antecedentTask.whenComplete(observer)
                } else if pinned, let actor = execution.pinnedActor(ref, step: step) {
                    antecedentTask.whenComplete(on: actor) { actor, completion in
                        actor.enter()
                        observer(completion)
                    }
                } else {
                    antecedentTask.whenComplete(on: executor, observer)
                }
            }
        }

        /// Task `task`'s echo, made and registered now, and the observer that completes it with the
        /// outcome it gets, logged as the body of a continuation on `executor`.
        static func observer(
            task: Int, executor ref: ExecutorRef, step: Int, in execution: ProgramExecution
        ) -> @Sendable (Completion<Int>) -> Void {
            let echo = execution.backend.makeSource(of: Int.self)
            execution.register(task, .int(echo.task), source: nil)
            let probe = execution.makeProbe("observer t\(task)")
            return { completion in
                _ = try? execution.body(
                    task: task, step: step, input: Outcome(completion), action: .returns, token: nil, probe: probe,
                    executor: ref)
                echo.tryComplete(completion)
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

    public static func observe(task: Int, antecedent: Int, executor: ExecutorRef, pinned: Bool = false, host: CallHost? = nil) -> Self {
        .observe(Observe(task: task, antecedent: antecedent, executor: executor, pinned: pinned, host: host))
    }
}
