extension ProgramOperation {
    /// `t<task>.wait()`, or with `timeoutMicroseconds`, `t<task>.wait(timeout:)`, or (`get`)
    /// `try t<task>.get()` (C6). A blocking `wait()` or `get()` is only generated when every
    /// completion it depends on comes earlier.
    public struct Wait: TasklessOperation, FormattedOperation {
        public var task = 0
        /// `wait(timeout:)`'s timeout; `nil`: `wait()` (or `get()`).
        public var timeoutMicroseconds: Int?
        /// `try get()`, which blocks like `wait()`, instead of `wait()`.
        public var get = false

        public init(task: Int, timeoutMicroseconds: Int?, get: Bool = false) {
            self.task = task
            self.timeoutMicroseconds = timeoutMicroseconds
            self.get = get && timeoutMicroseconds == nil
        }

        /// A blank payload, which `format` reads a text into.
        init() {}

        static let format = StepFormat<Self>(
            \.get, "try t\(\.task).get()", else: "t\(\.task).wait(\(\.timeoutMicroseconds, prefix: "timeout: ", suffix: "us"))")

        static func weight(in program: ProgramBuilder) -> Int { program.liveTasks.isEmpty ? 0 : 6 }

        /// A blocking `wait()` only on a task whose every source has a completing step earlier
        /// (none held): the generator's deadlock-freedom rule. Such a task gets a timed wait half
        /// the time: one that races the completion is where a timed wait's lost wake-up shows
        /// (C6.2), as an untimed wait's does (C6.1, C6.3).
        static func generate(into program: inout ProgramBuilder) {
            guard let task = program.rng.pick(program.liveTasks) else { return }
            let canBlock = program.completesEarly(task)
            if canBlock && program.rng.chance(50) {
                program.add(.wait(Wait(task: task, timeoutMicroseconds: nil, get: program.rng.chance(30))))
            } else {
                program.add(.waitTimeout(task: task, microseconds: program.rng.int(in: 0...1000)))
            }
        }

        var uses: [Use] { [.task(task)] }
        func renumbered(_ ids: Renumbering) -> Self { Self(task: ids.task(task), timeoutMicroseconds: timeoutMicroseconds, get: get) }

        var neverWaits: Bool { false }
        var blocking: Blocking { timeoutMicroseconds == nil ? .untilCompleted(task) : .untilTimeout(task) }
        var registersOrCompletes: Bool { false }
        var entryPoints: [EntryPoint] { [get ? .get : timeoutMicroseconds == nil ? .wait : .waitTimeout, .status] }
        var waitForm: WaitForm? { WaitForm(timeoutMicroseconds: timeoutMicroseconds, get: get) }

        /// Logs the result, and `status` after a result (C1.5).
        func perform(in execution: ProgramExecution, step: Int) {
            guard let slot = execution.slots.task(task) else { return }
            guard let us = timeoutMicroseconds else {
                execution.log.append(.waited(step: step, task: task, result: get ? slot.get() : slot.wait()))
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
