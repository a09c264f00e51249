extension ProgramOperation {
    /// `t<task> = backend.runAsync(token:) { body }`: an async body whose checkpoint is
    /// `Task.checkCancellation()`, so the token's cancellation must cross into the Swift task (C9.6).
    public struct RunAsync: TaskOperation {
        public var task: Int
        public var token: Int?
        public var body: BodyAction

        public init(task: Int, token: Int?, body: BodyAction) {
            self.task = task
            self.token = token
            self.body = body
        }

        static let kind = OperationKind.runAsync
        public var description: String { "t\(task) = runAsync(\(token.map { "token: k\($0)" } ?? "")) { \(body.rawValue) }" }
        var operation: ProgramOperation { .runAsync(self) }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                guard let task = s.id("t"), s.take(" = runAsync(") else { return nil }
                let token = s.take("token: ") ? s.id("k") : nil
                guard s.take(") "), let body = s.body() else { return nil }
                return Self(task: task, token: token, body: body)
            }
        }

        static func weight(in program: ProgramBuilder) -> Int { program.usesOutsideWork ? 3 : 0 }

        static func generate(into program: inout ProgramBuilder) {
            let runAsync = RunAsync(task: program.nextTask, token: program.token(), body: program.body())
            program.addTask(.runAsync(runAsync), sources: [], held: false)
        }

        var uses: [Use] { token.map { [.token($0)] } ?? [] }
        var createdToken: Int? { nil }
        func renumbered(_ ids: Renumbering) -> Self { Self(task: ids.task(task), token: token.map(ids.token), body: body) }

        var neverWaits: Bool { false }
        var outsideWork: OutsideWork { .completes(task: task, within: .seconds(1)) }
        var blocking: Blocking { .never }
        var registersOrCompletes: Bool { true }

        /// The body gets no token: its checkpoint is `Task.checkCancellation()` (C9.6).
        func perform(in execution: ProgramExecution, step: Int) {
            let probe = execution.makeProbe("async body of t\(task)")
            let (t, action) = (task, body)
            let made = execution.backend.runAsync(token: execution.token(token)) { [execution] in
                try execution.body(task: t, step: step, input: nil, action: action, token: nil, probe: probe)
            }
            execution.register(task, .int(made))
        }

        var dependence: Dependence { .nothing }
        var pendingRule: Rule { .c2_2 }

        func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation {
            model.oracle.bodyTask(task, step: step, action: body, token: token, cancelRule: .c9_6, rule: .c9_6)
        }
    }

    public static func runAsync(task: Int, token: Int?, body: BodyAction) -> Self {
        .runAsync(RunAsync(task: task, token: token, body: body))
    }
}
