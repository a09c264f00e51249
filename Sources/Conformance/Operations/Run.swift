extension ProgramOperation {
    /// `t<task> = backend.run(on: executor, token: k<token>) { body }`.
    public struct Run: TaskOperation {
        public var task: Int
        public var executor: ExecutorRef
        public var token: Int?
        public var body: BodyAction

        public init(task: Int, executor: ExecutorRef, token: Int?, body: BodyAction) {
            self.task = task
            self.executor = executor
            self.token = token
            self.body = body
        }

        static let kind = OperationKind.run
        public var description: String { "t\(task) = run(on: \(executor)\(tokenArgument(token))) { \(body.rawValue) }" }
        var operation: ProgramOperation { .run(self) }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                guard let task = s.id("t"), s.take(" = run(on: "), let executor = s.executor() else { return nil }
                let token = s.tokenArgument()
                guard s.take(") "), let body = s.body() else { return nil }
                return Self(task: task, executor: executor, token: token, body: body)
            }
        }

        static func weight(in program: ProgramBuilder) -> Int { 8 }

        static func generate(into program: inout ProgramBuilder) {
            let run = Run(task: program.nextTask, executor: program.executor(), token: program.token(), body: program.body())
            program.addTask(.run(run), sources: [], held: false)
        }

        var uses: [Use] { token.map { [.token($0)] } ?? [] }
        var createdToken: Int? { nil }
        func renumbered(_ ids: Renumbering) -> Self {
            Self(task: ids.task(task), executor: executor, token: token.map(ids.token), body: body)
        }

        var neverWaits: Bool { true }
        var outsideWork: OutsideWork { .none }
        var blocking: Blocking { .never }
        var registersOrCompletes: Bool { true }

        func perform(in execution: ProgramExecution, step: Int) {
            let cancellation = execution.token(token)
            let probe = execution.makeProbe("body of t\(task)")
            let (t, action) = (task, body)
            let made = execution.backend.run(on: execution.executors[executor], token: cancellation) { [execution] token in
                try execution.body(task: t, step: step, input: nil, action: action, token: token, probe: probe)
            }
            execution.register(task, .int(made))
        }

        var dependence: Dependence { .nothing }
        var pendingRule: Rule { .c2_2 }

        /// The body's result once it ran; cancelled if its token is, and it has not run (C4.3).
        func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation {
            model.oracle.bodyTask(task, step: step, action: body, token: token, cancelRule: .c4_3, rule: .c2_1)
        }
    }

    public static func run(task: Int, executor: ExecutorRef, token: Int?, body: BodyAction) -> Self {
        .run(Run(task: task, executor: executor, token: token, body: body))
    }
}

/// `, token: k<n>` when there is a token.
func tokenArgument(_ token: Int?) -> String { token.map { ", token: k\($0)" } ?? "" }
