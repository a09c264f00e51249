extension ProgramOperation {
    /// `t<task>.tryStart(on: executor)` on prepared task `t<task>`, or (`throwing`) `try
    /// t<task>.start(on: executor)`: the first start runs the body, any later one returns false
    /// (or throws `StartError.alreadyStarted`) and changes nothing (C9.3).
    public struct Start: TasklessOperation, FormattedOperation {
        public var task = 0
        public var executor: ExecutorRef = .default
        public var throwing = false

        public init(task: Int, executor: ExecutorRef, throwing: Bool = false) {
            self.task = task
            self.executor = executor
            self.throwing = throwing
        }

        /// A blank payload, which `format` reads a text into.
        init() {}

        static let format = StepFormat<Self>(
            \.throwing, "try t\(\.task).start(on: \(\.executor))", else: "t\(\.task).tryStart(on: \(\.executor))")

        static func weight(in program: ProgramBuilder) -> Int { program.unstarted.isEmpty ? 0 : 4 }

        /// A start, sometimes a second one racing from another driver (C9.3).
        static func generate(into program: inout ProgramBuilder) {
            guard let task = program.rng.pick(program.unstarted) else { return }
            let executor = program.rng.chance(20) ? ExecutorRef.inline : program.executor()
            program.add(.start(Start(task: task, executor: executor, throwing: program.rng.chance(40))))
            if program.rng.chance(30) {
                program.add(.start(Start(task: task, executor: program.executor(), throwing: program.rng.chance(40))))
            }
            program.unstarted.removeAll { $0 == task }
            program.started.append(task)
            // Started: no longer waits on the harness (a body cannot block on anything held).
            program.dependsOnHeld[task] = false
        }

        var uses: [Use] { [.prepared(task)] }
        func renumbered(_ ids: Renumbering) -> Self { Self(task: ids.task(task), executor: executor, throwing: throwing) }

        var neverWaits: Bool { true }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] { [throwing ? .preparedStart : .preparedTryStart] + executor.entryPoints }
        var startedPrepared: PreparedStart? { PreparedStart(task: task, executor: executor) }

        func perform(in execution: ProgramExecution, step: Int) {
            guard let prepared = execution.slots.prepared(task) else { return }
            let on = execution.executors[executor]
            var ok = true
            if throwing {
                do { try prepared.start(on: on) } catch { ok = false }
            } else {
                ok = prepared.tryStart(on: on)
            }
            execution.log.append(.started(step: step, task: task, ok: ok))
        }
    }

    public static func start(task: Int, executor: ExecutorRef) -> Self { .start(Start(task: task, executor: executor)) }
}
