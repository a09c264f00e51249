import TaskAPI

extension ProgramOperation {
    /// `t<task> = backend.run(on: executor, token: k<token>) { body }`, through one of its call
    /// forms (`CallForm`), the body taking the token or (`noToken`) none; or `runTask`, whose body
    /// returns a task (`returns`), unwrapped (C9.5); or `run` given a body returning a task
    /// (`keeps`), which it keeps as its value, as it is (C2.6). `runTask` may be handed its
    /// body's task as a `ForeignTask` (` -> foreign t3`, C2.6, contract 1.4; the marks are
    /// `ForeignStream`'s).
    public struct Run: TaskOperation {
        public var task: Int
        public var executor: ExecutorRef
        public var token: Int?
        public var body: BodyAction
        public var form: CallForm
        /// The body takes no token (`backend.run { 40 }`).
        public var noToken: Bool
        /// `runTask`: the task the body returns (nil: `run`, its body returns a value): C9.5.
        public var returns: InnerTask?
        /// `run` whose body returns this task, its value (C2.6); nil with `returns`.
        public var keeps: InnerTask?
        /// `runTask` is handed the task its body returns as a `ForeignTask` (only with `returns`).
        public var foreignReturned: Bool

        public init(
            task: Int, executor: ExecutorRef, token: Int?, body: BodyAction, form: CallForm = .requirement, noToken: Bool = false,
            returns: InnerTask? = nil, keeps: InnerTask? = nil, foreignReturned: Bool = false
        ) {
            self.task = task
            self.executor = executor
            self.token = token
            self.body = body
            // No `run` takes a pinned actor.
            self.form = form == .actor ? .requirement : CallForm.consistent(form, executor: executor, token: token)
            self.noToken = noToken
            self.returns = returns
            self.keeps = returns == nil ? keeps : nil
            self.foreignReturned = foreignReturned && returns != nil
        }

        public var description: String {
            "t\(task) = \(returns == nil ? "run" : "runTask")\(form.arguments(executor: executor, token: token)) "
                + "{ \(noToken ? "() in " : "")\(body.rawValue) }"
                + (returns.map { " -> " + ForeignStream.text($0.description, foreign: foreignReturned) } ?? keeps.map { " => \($0)" } ?? "")
        }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                guard let task = s.id("t"), s.take(" = run") else { return nil }
                let unwraps = s.take("Task")
                guard let (form, executor, token) = s.callArguments(), s.take(" "), let read = s.runBody(unwraps: unwraps, markable: true)
                else {
                    return nil
                }
                let run = Self(
                    task: task, executor: executor, token: token, body: read.body, form: form, noToken: read.noToken,
                    returns: read.returns, keeps: read.keeps, foreignReturned: read.foreign)
                return run.form == form ? run : nil
            }
        }

        static func weight(in program: ProgramBuilder) -> Int { 8 }

        static func generate(into program: inout ProgramBuilder) {
            // `run(token:)` runs on the backend's own default executor, which a controlled run does
            // not schedule: only where programs may use work from outside it.
            let form = [CallForm.requirement, .executor, .token][program.rng.weighted([50, 25, program.usesOutsideWork ? 25 : 0])]
            var (returns, keeps): (InnerTask?, InnerTask?) = (nil, nil)
            var sources: [Int] = []
            var held = false
            if program.rng.chance(35) {
                let drawn = program.returnedTask()
                // A task kept as the value is not waited for.
                if program.rng.chance(25) { keeps = drawn.inner } else { (returns, sources, held) = drawn }
            }
            let executor = form == .token ? ExecutorRef.default : program.executor()
            let token = form == .executor ? nil : form == .token ? program.rng.pick(program.tokens) : program.token()
            let run = Run(
                task: program.nextTask, executor: executor, token: token, body: program.body(), form: form,
                noToken: program.rng.chance(35), returns: returns, keeps: keeps)
            program.addTask(.run(run), sources: sources, held: held)
        }

        var uses: [Use] { ((returns ?? keeps)?.task.map { [.task($0)] } ?? []) + (token.map { [.token($0)] } ?? []) }
        func renumbered(_ ids: Renumbering) -> Self {
            Self(
                task: ids.task(task), executor: executor, token: token.map(ids.token), body: body, form: form, noToken: noToken,
                returns: returns?.renumbered(ids), keeps: keeps?.renumbered(ids), foreignReturned: foreignReturned)
        }

        /// Now and then (`ForeignStream.stepChance`) a `runTask` handed its body's task foreign.
        func markedForeign(_ rng: inout SplitMix64) -> ProgramOperation? {
            guard returns != nil, rng.chance(ForeignStream.stepChance) else { return nil }
            var marked = self
            marked.foreignReturned = true
            return .run(marked)
        }
        var foreignCount: Int { foreignReturned ? 1 : 0 }
        /// The step with the body's task handed `runTask` as it is.
        var smallerForms: [ProgramOperation] {
            guard foreignReturned else { return [] }
            var plain = self
            plain.foreignReturned = false
            return [.run(plain)]
        }

        var neverWaits: Bool { true }
        /// `run(token:)` hands the body to the backend's own default executor.
        var outsideWork: OutsideWork { form == .token ? .completes(task: task, within: .seconds(1)) : .none }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] {
            let call: EntryPoint
            switch (form, noToken, returns != nil) {
            case (_, false, true): call = .runTask
            case (_, true, true): call = .runTaskNoToken
            case (.requirement, false, false), (.actor, false, false): call = .run
            case (.executor, false, false): call = .runOn
            case (.token, false, false): call = .runToken
            case (.requirement, true, false), (.actor, true, false): call = .runNoToken
            case (.executor, true, false): call = .runOnNoToken
            case (.token, true, false): call = .runTokenNoToken
            }
            let made = (returns ?? keeps)?.entryPoints ?? []
            let reads: [EntryPoint] = keeps == nil ? [] : [.map, .inlineExecutor]
            return [call] + made + reads + executor.entryPoints + tokenEntryPoints(token) + (body == .checkpoint ? [.tokenCheckpoint] : [])
                + [.isCurrent, .status]
        }
        /// With a task kept as its value, the step's task is the harness's read of that value,
        /// pending while the body runs: not the body's own.
        var bodySpec: BodySpec? { BodySpec(task: task, executor: .on(executor), token: token, runsTask: keeps == nil) }

        func perform(in execution: ProgramExecution, step: Int) {
            let cancellation = execution.token(token)
            let probe = execution.makeProbe("body of t\(task)")
            let (t, action, ref, noToken) = (task, self.body, self.executor, self.noToken)
            // A body that takes no token checks the one it captured.
            @Sendable func body(_ token: CancellationToken) throws -> Int {
                try execution.body(
                    task: t, step: step, input: nil, action: action, token: noToken ? cancellation : token, probe: probe,
                    executor: ref)
            }
            let call = RunCall(execution: execution, run: self, token: cancellation)
            guard let returned = returns ?? keeps else {
                execution.register(task, .int(call.run(body)))
                return
            }
            let (existing, foreign) = (returned.task.flatMap { execution.slots.task($0)?.intTask }, foreignReturned)
            @Sendable func inner(_ token: CancellationToken) throws -> any AsyncTask<Int> {
                _ = try body(token)
                return ForeignTask.handed(execution.innerTask(returned, task: t, step: step, existing: existing), foreign: foreign)
            }
            if returns != nil {
                execution.register(task, .int(call.runTask(inner)))
                return
            }
            let kept = ReturnedTask()
            let value = ProgramValues.value(step: step)
            let made = call.run { token in kept.keep(try inner(token)) }
            execution.register(task, .int(made.map(on: execution.executors.inlineExecutor, token: .none) { kept.read($0, value: value) }))
        }

        var dependence: Dependence { returns?.task.map { .tasks([$0]) } ?? .nothing }
        var madeFromSource: Bool { false }
        var pendingRule: Rule { returns == nil ? .c2_2 : unwrapRule }
        /// The rule of the task `runTask` unwraps: C9.5's, or, handed a `ForeignTask`, C2.6's
        /// (contract 1.4: a task-returning form takes a task of any class).
        var unwrapRule: Rule { foreignReturned ? .c2_6 : .c9_5 }

        /// The body's result once it ran; cancelled if its token is, and it has not run (C4.3);
        /// for a body returning a task, that task's outcome (C9.5; C2.6 for a foreign one), or,
        /// kept, that very task, at once (C2.6).
        func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation {
            let result = model.oracle.bodyTask(task, step: step, action: body, token: token, cancelRule: .c4_3, rule: .c2_1)
            guard case .outcomes(let allowed, let rule) = result, allowed == [.success(ProgramValues.value(step: step))] else {
                return result
            }
            if keeps != nil { return .outcomes(allowed, rule == .c2_1 ? .c2_1 : .c2_6) }
            guard let returns else { return result }
            return model.oracle.returnedOutcome(returns, step: step, in: model, rule: rule == .c2_1 ? .c2_1 : unwrapRule)
        }
    }

    public static func run(
        task: Int, executor: ExecutorRef, token: Int?, body: BodyAction, form: CallForm = .requirement,
        noToken: Bool = false, returns: InnerTask? = nil, keeps: InnerTask? = nil
    ) -> Self {
        .run(Run(task: task, executor: executor, token: token, body: body, form: form, noToken: noToken, returns: returns, keeps: keeps))
    }
}

/// One `Run` step's call, in its form: `run` with a body taking the token or none (its value of
/// any type: an `Int`, or a task kept as it is), `runTask` likewise.
private struct RunCall {
    let execution: ProgramExecution
    let run: ProgramOperation.Run
    let token: CancellationToken

    func run<T: Sendable>(_ body: @escaping @Sendable (CancellationToken) throws -> T) -> any AsyncTask<T> {
        let backend = execution.backend
        let executor = execution.executors[run.executor]
        let optional: (any AsyncTaskExecutor)? = executor
        let captured = token
        switch (run.form, run.noToken) {
        case (.requirement, false), (.actor, false): return backend.run(on: executor, token: token) { token in try body(token) }
        case (.executor, false): return backend.run(on: optional) { (token: CancellationToken) in try body(token) }
        case (.token, false): return backend.run(token: token) { (token: CancellationToken) in try body(token) }
        case (.requirement, true), (.actor, true): return backend.run(on: executor, token: token) { () throws -> T in try body(captured) }
        case (.executor, true): return backend.run(on: optional) { () throws -> T in try body(captured) }
        case (.token, true): return backend.run(token: token) { () throws -> T in try body(captured) }
        }
    }

    func runTask(_ body: @escaping @Sendable (CancellationToken) throws -> any AsyncTask<Int>) -> any AsyncTask<Int> {
        let backend = execution.backend
        let executor = execution.executors[run.executor]
        let optional: (any AsyncTaskExecutor)? = executor
        let captured = token
        switch (run.form, run.noToken) {
        case (.requirement, false), (.actor, false):
            return backend.runTask(on: executor, token: token) { (token: CancellationToken) in try body(token) }
        case (.executor, false): return backend.runTask(on: optional) { (token: CancellationToken) in try body(token) }
        case (.token, false): return backend.runTask(token: token) { (token: CancellationToken) in try body(token) }
        case (.requirement, true), (.actor, true):
            return backend.runTask(on: executor, token: token) { () throws -> any AsyncTask<Int> in try body(captured) }
        case (.executor, true): return backend.runTask(on: optional) { () throws -> any AsyncTask<Int> in try body(captured) }
        case (.token, true): return backend.runTask(token: token) { () throws -> any AsyncTask<Int> in try body(captured) }
        }
    }
}

/// `, token: k<n>` when there is a token.
func tokenArgument(_ token: Int?) -> String { token.map { ", token: k\($0)" } ?? "" }
