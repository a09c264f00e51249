extension ProgramOperation {
    /// `t<task> = backend.delay(_:token:)`: succeeds (with `()`, logged as `success(0)`) after
    /// the delay; cancelled with its token (C5.4, C4.3).
    public struct Delay: TaskOperation, FormattedOperation {
        public var task = 0
        public var microseconds = 0
        public var token: Int?

        static let format: StepFormat<Self> = "t\(\.task) = delay(\(\.microseconds)us\(token: \.token))"

        static func weight(in program: ProgramBuilder) -> Int { program.usesOutsideWork ? 2 : 0 }

        static func generate(into program: inout ProgramBuilder) {
            let delay = Delay(task: program.nextTask, microseconds: program.rng.int(in: 0...2000), token: program.token())
            program.addTask(.delay(delay), sources: [], held: false, intValued: false)
        }

        var uses: [Use] { token.map { [.token($0)] } ?? [] }
        func renumbered(_ ids: Renumbering) -> Self { Self(task: ids.task(task), microseconds: microseconds, token: token.map(ids.token)) }

        var neverWaits: Bool { false }
        var outsideWork: OutsideWork { .completes(task: task, within: .microseconds(microseconds)) }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] { token == nil ? [.delayNoToken] : [.delay] + tokenEntryPoints(token) }
        var timedCompletion: TimedCompletion? { .elapses(task: task, microseconds: microseconds, token: token) }

        /// With no token, the convenience `delay(_:)`.
        func perform(in execution: ProgramExecution, step: Int) {
            let backend = execution.backend
            let delay =
                token == nil
                ? backend.delay(.microseconds(microseconds))
                : backend.delay(.microseconds(microseconds), token: execution.token(token))
            execution.register(task, .void(delay))
        }

        var dependence: Dependence { .nothing }
        var madeFromSource: Bool { true }
        var pendingRule: Rule { .c2_2 }

        func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation {
            .outcomes(model.oracle.tokenState(token) == .never ? [.success(0)] : [.success(0), .cancelled], .c5_4)
        }
    }

    public static func delay(task: Int, microseconds: Int, token: Int?) -> Self {
        .delay(Delay(task: task, microseconds: microseconds, token: token))
    }
}
