extension ProgramOperation {
    /// `<executor>.execute { job }`: a job handed straight to an executor, which logs each run:
    /// run exactly once (C7.3).
    public struct Submit: TasklessOperation, FormattedOperation {
        public var executor: ExecutorRef = .default

        static let format: StepFormat<Self> = "\(\.executor).execute { job }"

        static func weight(in program: ProgramBuilder) -> Int { 2 }

        static func generate(into program: inout ProgramBuilder) {
            program.add(.submit(executor: program.executor()))
        }

        var uses: [Use] { [] }
        func renumbered(_ ids: Renumbering) -> Self { self }

        var neverWaits: Bool { true }
        var registersOrCompletes: Bool { false }
        var entryPoints: [EntryPoint] { [.execute] + executor.entryPoints }
        var submittedJob: ExecutorRef? { executor }

        func perform(in execution: ProgramExecution, step: Int) {
            let log = execution.log
            execution.executors[executor].execute { log.append(.jobRan(step: step)) }
        }
    }

    public static func submit(executor: ExecutorRef) -> Self { .submit(Submit(executor: executor)) }
}
