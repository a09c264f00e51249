import TaskAPI

extension ProgramOperation {
    /// `inspect t<task>`: reads the task's `completion`, `status`, `isCompleted` and
    /// `backend.name`, and `isCurrent` of the backend's `mainExecutor` (and of its `executor`, and of
    /// `MainExecutor.mainActor`); for a prepared task also its
    /// `isStarted`, its token's `isCancellationRequested` and its `backend`. The checks judge
    /// them where the model knows the answer: pending until something started or completed the
    /// task, completed once its completion was seen (C1.1, C1.5, C9.3, C9.7).
    public struct Inspect: TasklessOperation, FormattedOperation {
        public var task = 0
        /// The task is a prepared one: read its `PreparedTask` too.
        public var prepared = false

        public init(task: Int, prepared: Bool = false) {
            self.task = task
            self.prepared = prepared
        }

        /// A blank payload, which `format` reads a text into.
        init() {}

        static let format: StepFormat<Self> = "inspect t\(\.task)\(\.prepared, " (prepared)")"

        static func weight(in program: ProgramBuilder) -> Int { program.liveTasks.isEmpty ? 0 : 5 }

        /// Sources and prepared tasks (whose status the model knows best) are picked more often.
        static func generate(into program: inout ProgramBuilder) {
            let preparedTasks = (program.unstarted + program.started).filter(program.liveTasks.contains)
            let sources = (program.openSources + program.completedSources).filter(program.liveTasks.contains)
            let pool = [program.liveTasks, preparedTasks, sources][
                program.rng.weighted([50, preparedTasks.isEmpty ? 0 : 25, sources.isEmpty ? 0 : 25])]
            guard let task = program.rng.pick(pool) else { return }
            program.add(.inspect(Inspect(task: task, prepared: preparedTasks.contains(task))))
        }

        var uses: [Use] { [.task(task)] + (prepared ? [.prepared(task)] : []) }
        func renumbered(_ ids: Renumbering) -> Self { Self(task: ids.task(task), prepared: prepared) }

        var neverWaits: Bool { true }
        var registersOrCompletes: Bool { false }
        var entryPoints: [EntryPoint] {
            [
                .completion, .status, .isCompleted, .taskBackend, .name, .mainExecutor, .mainIsCurrent, .mainExecutorExecutor, .isCurrent,
                .mainActor
            ]
                + (prepared ? [.preparedIsStarted, .preparedToken, .tokenIsCancellationRequested, .preparedBackend] : [])
        }

        func perform(in execution: ProgramExecution, step: Int) {
            guard let slot = execution.slots.task(task) else { return }
            let read = slot.inspect()
            // The main executor, as itself and as a plain executor, and the main actor's: none is
            // current on a driver thread (C9.7).
            let main = execution.backend.mainExecutor
            let mainIsCurrent = main.isCurrent || main.executor.isCurrent || MainExecutor.mainActor.isCurrent
            execution.log.append(
                .inspected(
                    step: step, task: task, status: read.status, completion: read.completion,
                    isCompleted: read.isCompleted, backend: read.backend, mainIsCurrent: mainIsCurrent))
            guard prepared, let preparedTask = execution.slots.prepared(task) else { return }
            execution.log.append(
                .preparedInspected(
                    step: step, task: task, isStarted: preparedTask.isStarted,
                    tokenCancelled: preparedTask.token.isCancellationRequested,
                    backend: preparedTask.backend.name))
        }
    }

    public static func inspect(task: Int) -> Self { .inspect(Inspect(task: task)) }
}

extension ProgramOperation {
    /// `inspect k<token>`: reads the source's and its token's `isCancellationRequested`, the
    /// token's `canBeCancelled`, and `CancellationToken.none`'s. Requested once a `cancel()` of
    /// its lineage returned, never before one started (C4.1).
    public struct InspectToken: TasklessOperation, FormattedOperation {
        public var token = 0

        static let format: StepFormat<Self> = "inspect k\(\.token)"

        static func weight(in program: ProgramBuilder) -> Int { program.tokens.isEmpty ? 0 : 2 }

        static func generate(into program: inout ProgramBuilder) {
            guard let token = program.rng.pick(program.tokens) else { return }
            program.add(.inspectToken(InspectToken(token: token)))
        }

        var uses: [Use] { [.token(token)] }
        func renumbered(_ ids: Renumbering) -> Self { Self(token: ids.token(token)) }

        var neverWaits: Bool { true }
        var registersOrCompletes: Bool { false }
        var entryPoints: [EntryPoint] {
            [.sourceIsCancellationRequested, .tokenIsCancellationRequested, .tokenCanBeCancelled, .tokenNone] + tokenEntryPoints(token)
        }

        func perform(in execution: ProgramExecution, step: Int) {
            guard let source = execution.slots.token(token) else { return }
            let requested = source.isCancellationRequested
            let tokenValue = execution.token(token)
            let none = CancellationToken.none
            execution.log.append(
                .tokenInspected(
                    step: step, token: token, sourceRequested: requested, tokenRequested: tokenValue.isCancellationRequested,
                    canBeCancelled: tokenValue.canBeCancelled, noneIsInert: !none.canBeCancelled && !none.isCancellationRequested))
        }
    }

    public static func inspectToken(token: Int) -> Self { .inspectToken(InspectToken(token: token)) }
}
