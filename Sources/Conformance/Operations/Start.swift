extension ProgramOperation {
    /// `t<task>.start(on: executor)` on prepared task `t<task>` (`tryStart(on:)`): the first start
    /// runs the body, any later one returns false and changes nothing (C9.3).
    public struct Start: TasklessOperation {
        public var task: Int
        public var executor: ExecutorRef

        public init(task: Int, executor: ExecutorRef) {
            self.task = task
            self.executor = executor
        }

        static let kind = OperationKind.start
        public var description: String { "t\(task).start(on: \(executor))" }
        var operation: ProgramOperation { .start(self) }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                guard let task = s.id("t"), s.take(".start(on: "), let executor = s.executor(), s.take(")") else { return nil }
                return Self(task: task, executor: executor)
            }
        }

        static func weight(in program: ProgramBuilder) -> Int { program.unstarted.isEmpty ? 0 : 4 }

        /// A start, sometimes a second one racing from another driver (C9.3).
        static func generate(into program: inout ProgramBuilder) {
            guard let task = program.rng.pick(program.unstarted) else { return }
            let executor = program.rng.chance(20) ? ExecutorRef.inline : program.executor()
            program.add(.start(task: task, executor: executor))
            if program.rng.chance(30) { program.add(.start(task: task, executor: program.executor())) }
            program.unstarted.removeAll { $0 == task }
            program.started.append(task)
            // Started: no longer waits on the harness (a body cannot block on anything held).
            program.dependsOnHeld[task] = false
        }

        var uses: [Use] { [.prepared(task)] }
        var createdToken: Int? { nil }
        func renumbered(_ ids: Renumbering) -> Self { Self(task: ids.task(task), executor: executor) }

        var neverWaits: Bool { true }
        var outsideWork: OutsideWork { .none }
        var blocking: Blocking { .never }
        var registersOrCompletes: Bool { true }

        func perform(in execution: ProgramExecution, step: Int) {
            guard let prepared = execution.slots.prepared(task) else { return }
            execution.log.append(.started(step: step, task: task, ok: prepared.tryStart(on: execution.executors[executor])))
        }
    }

    public static func start(task: Int, executor: ExecutorRef) -> Self { .start(Start(task: task, executor: executor)) }
}
