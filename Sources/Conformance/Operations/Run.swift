import TaskAPI

extension ProgramOperation {
    /// `t<task> = backend.run(on: executor, token: k<token>) { body }`, through the requirement or
    /// one of the conveniences (`on:` an optional executor; a body taking no token; a body
    /// returning a task, unwrapped: C9.5).
    public struct Run: TaskOperation {
        /// Which `run` the step calls.
        public enum Form: String, Sendable, Hashable {
            /// The requirement: `run(on: any Executor, token:_:)`, a body taking the token.
            case requirement
            /// The convenience taking an optional executor, a body taking the token.
            case convenience
            /// The convenience whose body takes no token (`backend.run { 40 }`).
            case noToken
        }

        public var task: Int
        public var executor: ExecutorRef
        public var token: Int?
        public var body: BodyAction
        public var form: Form
        /// The task the body returns (nil: it returns a value): C9.5.
        public var returns: InnerTask?

        public init(task: Int, executor: ExecutorRef, token: Int?, body: BodyAction, form: Form = .requirement, returns: InnerTask? = nil) {
            self.task = task
            self.executor = executor
            self.token = token
            self.body = body
            // No requirement returns a task: such a run is a convenience.
            self.form = returns != nil && form == .requirement ? .convenience : form
            self.returns = returns
        }

        static let kind = OperationKind.run
        public var description: String {
            let on = form == .requirement ? "\(executor)" : ".some(\(executor))"
            let parameter = form == .noToken ? "() in " : ""
            return "t\(task) = run(on: \(on)\(tokenArgument(token))) { \(parameter)\(body.rawValue) }" + (returns.map { " -> \($0)" } ?? "")
        }
        var operation: ProgramOperation { .run(self) }

        static func weight(in program: ProgramBuilder) -> Int { 8 }

        static func generate(into program: inout ProgramBuilder) {
            let form = [Form.requirement, .convenience, .noToken][program.rng.weighted([50, 25, 25])]
            var returns: InnerTask?
            var sources: [Int] = []
            var held = false
            if form != .requirement, program.rng.chance(40) {
                returns = .new
                if program.rng.chance(50), let existing = program.rng.pick(program.intTasks) {
                    returns = .existing(existing)
                    (sources, held) = (program.sourcesDependedOn[existing], program.dependsOnHeld[existing])
                }
            }
            let run = Run(task: program.nextTask, executor: program.executor(), token: program.token(), body: program.body(), form: form,
                          returns: returns)
            program.addTask(.run(run), sources: sources, held: held)
        }

        var uses: [Use] { (returns?.task.map { [.task($0)] } ?? []) + (token.map { [.token($0)] } ?? []) }
        var createdToken: Int? { nil }
        func renumbered(_ ids: Renumbering) -> Self {
            Self(task: ids.task(task), executor: executor, token: token.map(ids.token), body: body, form: form,
                 returns: returns.map { $0.task.map { .existing(ids.task($0)) } ?? .new })
        }

        var neverWaits: Bool { true }
        var outsideWork: OutsideWork { .none }
        var blocking: Blocking { .never }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] {
            let call: EntryPoint
            switch (form, returns != nil) {
            case (.requirement, _): call = .run
            case (.convenience, false): call = .runConvenience
            case (.noToken, false): call = .runNoToken
            case (.convenience, true): call = .runTask
            case (.noToken, true): call = .runTaskNoToken
            }
            let inner: [EntryPoint] = returns == .new ? [.run, .defaultExecutor] : []
            return [call] + inner + executor.entryPoints + tokenEntryPoints(token) + (body == .checkpoint ? [.tokenCheckpoint] : [])
                + [.isCurrent, .status]
        }
        var bodySpec: BodySpec? { BodySpec(task: task, executor: .on(executor), token: token) }

        func perform(in execution: ProgramExecution, step: Int) {
            let cancellation = execution.token(token)
            let probe = execution.makeProbe("body of t\(task)")
            let (t, action, ref) = (task, self.body, self.executor)
            let executor = execution.executors[ref]
            let optional: (any Executor)? = executor
            @Sendable func body(_ token: CancellationToken?) throws -> Int {
                try execution.body(task: t, step: step, input: nil, action: action, token: token, probe: probe, executor: ref)
            }
            let made: any AsyncTask<Int>
            if let returns {
                let backend = execution.backend
                let defaultExecutor = execution.executors.defaultExecutor
                let existing = returns.task.flatMap { execution.slots.task($0)?.intTask } ?? backend.cancelled(as: Int.self)
                @Sendable func inner() -> any AsyncTask<Int> {
                    returns == .new ? backend.run(on: defaultExecutor, token: .none) { _ in execution.innerBody(task: t, step: step) } : existing
                }
                switch form {
                case .requirement, .convenience:
                    made = backend.run(on: optional, token: cancellation) { (token: CancellationToken) throws -> any AsyncTask<Int> in
                        _ = try body(token)
                        return inner()
                    }
                case .noToken:
                    made = backend.run(on: optional, token: cancellation) { () throws -> any AsyncTask<Int> in
                        _ = try body(cancellation)
                        return inner()
                    }
                }
            } else {
                switch form {
                case .requirement: made = execution.backend.run(on: executor, token: cancellation) { token in try body(token) }
                case .convenience: made = execution.backend.run(on: optional, token: cancellation) { (token: CancellationToken) in try body(token) }
                // A body that takes no token checks the one it captured.
                case .noToken: made = execution.backend.run(on: optional, token: cancellation) { () throws -> Int in try body(cancellation) }
                }
            }
            execution.register(task, .int(made))
        }

        var dependence: Dependence { returns?.task.map { .tasks([$0]) } ?? .nothing }
        var madeFromSource: Bool { false }
        var pendingRule: Rule { returns == nil ? .c2_2 : .c9_5 }

        /// The body's result once it ran; cancelled if its token is, and it has not run (C4.3);
        /// for a body returning a task, that task's outcome (C9.5).
        func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation {
            let result = model.oracle.bodyTask(task, step: step, action: body, token: token, cancelRule: .c4_3, rule: .c2_1)
            guard let returns, case .outcomes(let allowed, let rule) = result, allowed == [.success(ProgramValues.value(step: step))] else {
                return result
            }
            guard let existing = returns.task else { return .outcomes([.success(ProgramValues.innerValue(step: step))], .c9_5) }
            switch model.oracle.resolvedOrState(model.input(existing), task: existing) {
            case .outcome(let outcome): return .outcomes([outcome], rule == .c2_1 ? .c2_1 : .c9_5)
            case .pending: return .pending
            case .unknown: return .unknown
            }
        }
    }

    public static func run(task: Int, executor: ExecutorRef, token: Int?, body: BodyAction, form: Run.Form = .requirement,
                           returns: InnerTask? = nil) -> Self {
        .run(Run(task: task, executor: executor, token: token, body: body, form: form, returns: returns))
    }
}

/// `, token: k<n>` when there is a token.
func tokenArgument(_ token: Int?) -> String { token.map { ", token: k\($0)" } ?? "" }
