import TaskAPI

extension ProgramOperation {
    /// `t<task> = backend.runAsync(token:) { body }`: an async body whose checkpoint is
    /// `Task.checkCancellation()`, so the token's cancellation must cross into the Swift task
    /// (C9.6); also its other spellings: `runAsync { }` (no token), `run(token:) { try await }`,
    /// and `runAsync(token:preferring:)` with a task executor over the default executor.
    public struct RunAsync: TaskOperation {
        /// Which entry point starts the Swift task.
        public enum Form: String, Sendable, Hashable {
            /// `runAsync(token:_:)`, the requirement.
            case runAsync
            /// `runAsync(_:)`: no token.
            case noToken
            /// `run(token:_:)` with an async body.
            case spelledRun
            /// `runAsync(token:preferring:_:)`, preferring a task executor of the harness's that
            /// runs its jobs on the program's default executor.
            case preferring
        }

        public var task: Int
        public var token: Int?
        public var body: BodyAction
        public var form: Form

        public init(task: Int, token: Int?, body: BodyAction, form: Form = .runAsync) {
            self.task = task
            self.token = form == .noToken ? nil : token
            self.body = body
            self.form = form
        }

        public var description: String {
            let name =
                ["runAsync": "runAsync", "noToken": "runAsync", "spelledRun": "run", "preferring": "runAsync"][form.rawValue] ?? "runAsync"
            var arguments = token.map { ["token: k\($0)"] } ?? []
            if form == .preferring { arguments.append("preferring: default") }
            let call = form == .noToken ? name : "\(name)(\(arguments.joined(separator: ", ")))"
            return "t\(task) = \(call) { async \(body.rawValue) }"
        }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                guard let task = s.id("t"), s.take(" = ") else { return nil }
                let form: Form
                var token: Int?
                if s.take("runAsync { ") {
                    form = .noToken
                } else {
                    let spelledRun = s.take("run(")
                    guard spelledRun || s.take("runAsync(") else { return nil }
                    if s.take("token: ") {
                        guard let k = s.id("k") else { return nil }
                        token = k
                    }
                    let preferring = !spelledRun && s.take(token == nil ? "preferring: default" : ", preferring: default")
                    form = spelledRun ? .spelledRun : preferring ? .preferring : .runAsync
                    guard s.take(") { ") else { return nil }
                }
                guard s.take("async "), let body = s.oneOf(BodyAction.self), s.take(" }") else { return nil }
                return Self(task: task, token: token, body: body, form: form)
            }
        }

        static func weight(in program: ProgramBuilder) -> Int { program.usesOutsideWork ? 3 : 0 }

        static func generate(into program: inout ProgramBuilder) {
            let form = [Form.runAsync, .noToken, .spelledRun, .preferring][program.rng.weighted([40, 20, 20, 20])]
            let runAsync = RunAsync(task: program.nextTask, token: program.token(), body: program.body(), form: form)
            program.addTask(.runAsync(runAsync), sources: [], held: false)
        }

        var uses: [Use] { token.map { [.token($0)] } ?? [] }
        func renumbered(_ ids: Renumbering) -> Self { Self(task: ids.task(task), token: token.map(ids.token), body: body, form: form) }

        var neverWaits: Bool { false }
        var outsideWork: OutsideWork { .completes(task: task, within: .seconds(1)) }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] {
            let call: [EntryPoint]
            switch form {
            case .runAsync: call = [.runAsync]
            case .noToken: call = [.runAsyncNoToken]
            case .spelledRun: call = [.runAsyncSpelledRun]
            case .preferring: call = [.runAsyncPreferring, .defaultExecutor]
            }
            return call + tokenEntryPoints(token) + [.status]
        }
        var bodySpec: BodySpec? { BodySpec(task: task, executor: .swiftTask, token: token) }

        /// The body gets no token: its checkpoint is `Task.checkCancellation()` (C9.6).
        func perform(in execution: ProgramExecution, step: Int) {
            let probe = execution.makeProbe("async body of t\(task)")
            let (t, action) = (task, self.body)
            let backend = execution.backend
            let token = execution.token(token)
            @Sendable func body() async throws -> Int {
                try execution.body(task: t, step: step, input: nil, action: action, token: nil, probe: probe)
            }
            let made: any AsyncTask<Int>
            switch form {
            case .runAsync: made = backend.runAsync(token: token) { try await body() }
            case .noToken: made = backend.runAsync { try await body() }
            case .spelledRun: made = backend.run(token: token) { try await body() }
            case .preferring:
                made = backend.runAsync(token: token, preferring: JobExecutor(execution.executors.defaultExecutor)) {
                    try await body()
                }
            }
            execution.register(task, .int(made))
        }

        var dependence: Dependence { .nothing }
        var madeFromSource: Bool { false }
        var pendingRule: Rule { .c2_2 }

        func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation {
            model.oracle.bodyTask(task, step: step, action: body, token: token, cancelRule: .c9_6, rule: .c9_6)
        }
    }

    public static func runAsync(task: Int, token: Int?, body: BodyAction) -> Self {
        .runAsync(RunAsync(task: task, token: token, body: body))
    }
}
