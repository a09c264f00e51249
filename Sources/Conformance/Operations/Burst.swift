import TaskAPI

extension ProgramOperation {
    /// `serial<n>.execute { job } ×count`: a burst of jobs handed to one serial executor at once,
    /// at any point of its life (so its queue must grow, also while its ring has wrapped): each
    /// runs exactly once, in the order handed over (C7.2, C7.3).
    public struct Burst: TasklessOperation, FormattedOperation {
        public var serial = 0
        public var count = 0

        static let format: StepFormat<Self> = "serial\(\.serial).execute { job } ×\(\.count)"

        static func weight(in program: ProgramBuilder) -> Int { program.serials > 0 ? 1 : 0 }

        static func generate(into program: inout ProgramBuilder) {
            program.add(.burst(Burst(serial: program.rng.below(program.serials), count: program.rng.int(in: 64...80))))
        }

        var uses: [Use] { [] }
        func renumbered(_ ids: Renumbering) -> Self { self }

        var neverWaits: Bool { true }
        var registersOrCompletes: Bool { false }
        var entryPoints: [EntryPoint] { [.execute] + ExecutorRef.serial(serial).entryPoints }
        var burstJobs: Int? { count }

        func perform(in execution: ProgramExecution, step: Int) {
            guard serial < execution.executors.serial.count else { return }
            let executor = execution.executors.serial[serial]
            let (log, seated) = (execution.log, execution.seated)
            for index in 0..<count {
                log.callPending()
                executor.execute {
                    ProgramExecution.jobPoint(seated: seated)
                    log.append(.burstJobRan(step: step, index: index))
                }
            }
        }
    }

    public static func burst(serial: Int, count: Int) -> Self { .burst(Burst(serial: serial, count: count)) }
}
