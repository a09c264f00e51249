extension ProgramOperation {
    /// `t<task>.wait()`, or with `timeoutMicroseconds`, `t<task>.wait(timeout:)` (C6). A blocking
    /// `wait()` is only generated when every completion it depends on comes earlier.
    public struct Wait: TasklessOperation {
        public var task: Int
        /// `wait(timeout:)`'s timeout; `nil`: `wait()`.
        public var timeoutMicroseconds: Int?

        public init(task: Int, timeoutMicroseconds: Int?) {
            self.task = task
            self.timeoutMicroseconds = timeoutMicroseconds
        }

        static let kind = OperationKind.wait
        public var description: String {
            timeoutMicroseconds.map { "t\(task).wait(timeout: \($0)us)" } ?? "t\(task).wait()"
        }
        var operation: ProgramOperation { .wait(self) }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                guard let task = s.id("t"), s.take(".wait(") else { return nil }
                if s.take(")") { return Self(task: task, timeoutMicroseconds: nil) }
                guard s.take("timeout: "), let timeout = s.microseconds(), s.take(")") else { return nil }
                return Self(task: task, timeoutMicroseconds: timeout)
            }
        }

        static func weight(in program: ProgramBuilder) -> Int { program.liveTasks.isEmpty ? 0 : 6 }

        /// A blocking `wait()` only on a task whose every source has a completing step earlier
        /// (none held): the generator's deadlock-freedom rule.
        static func generate(into program: inout ProgramBuilder) {
            guard let task = program.rng.pick(program.liveTasks) else { return }
            let completedEarlier = Set(program.completedSources + program.releasedSources + program.started)
            let canBlock = !program.dependsOnHeld[task] && program.sourcesDependedOn[task].allSatisfy { completedEarlier.contains($0) }
            if canBlock && program.rng.chance(70) {
                program.add(.wait(task: task))
            } else {
                program.add(.waitTimeout(task: task, microseconds: program.rng.int(in: 0...1000)))
            }
        }

        var uses: [Use] { [.task(task)] }
        var createdToken: Int? { nil }
        func renumbered(_ ids: Renumbering) -> Self { Self(task: ids.task(task), timeoutMicroseconds: timeoutMicroseconds) }

        var neverWaits: Bool { false }
        var outsideWork: OutsideWork { .none }
        var blocking: Blocking { timeoutMicroseconds == nil ? .untilCompleted(task) : .untilTimeout(task) }
        var registersOrCompletes: Bool { false }

        /// Logs the result, and `status` after a result (C1.5).
        func perform(in execution: ProgramExecution, step: Int) {
            guard let slot = execution.slots.task(task) else { return }
            guard let us = timeoutMicroseconds else {
                execution.log.append(.waited(step: step, task: task, result: slot.wait()))
                execution.log.append(.status(step: step, task: task, status: slot.status))
                return
            }
            let result = slot.wait(timeout: .microseconds(us))
            execution.log.append(.waited(step: step, task: task, result: result))
            if result != nil { execution.log.append(.status(step: step, task: task, status: slot.status)) }
        }
    }

    public static func wait(task: Int) -> Self { .wait(Wait(task: task, timeoutMicroseconds: nil)) }

    public static func waitTimeout(task: Int, microseconds: Int) -> Self {
        .wait(Wait(task: task, timeoutMicroseconds: microseconds))
    }
}
