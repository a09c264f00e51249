import TaskAPI

extension ProgramOperation {
    /// `t<task>.tryStart()` on a source: pending to running, for algorithms that run a body on the
    /// task's behalf; `false`, changing nothing, once the task is not pending (C1.5).
    public struct TryStart: TasklessOperation, FormattedOperation {
        public var task = 0

        static let format: StepFormat<Self> = "t\(\.task).tryStart()"

        static func weight(in program: ProgramBuilder) -> Int { program.hasSources ? 2 : 0 }

        static func generate(into program: inout ProgramBuilder) {
            let sources = (program.openSources + program.completedSources).filter(program.liveTasks.contains)
            guard let task = program.rng.pick(sources) else { return }
            program.add(.tryStart(TryStart(task: task)))
        }

        /// The task, not the source: a start is not a setter (a source with no setter but a
        /// start must still become held when shrinking), and a release does not wait for it.
        var uses: [Use] { [.task(task)] }
        func renumbered(_ ids: Renumbering) -> Self { Self(task: ids.task(task)) }

        var neverWaits: Bool { true }
        var registersOrCompletes: Bool { false }
        var entryPoints: [EntryPoint] { [.tryStart] }
        var startedSource: Int? { task }

        /// Nothing if the source was released meanwhile.
        func perform(in execution: ProgramExecution, step: Int) {
            guard execution.slots.task(task) != nil, let source = execution.slots.source(ifPresent: task) else { return }
            execution.log.append(.sourceStarted(step: step, task: task, ok: source.tryStart()))
        }
    }

    public static func tryStart(task: Int) -> Self { .tryStart(TryStart(task: task)) }
}

extension ProgramOperation {
    /// `t<task>.cancel()` on a prepared task: before its start, the task completes cancelled at
    /// once and the body never runs; after, the body sees it through its token (C9.3, C4.3).
    public struct CancelPrepared: TasklessOperation, FormattedOperation {
        public var task = 0

        static let format: StepFormat<Self> = "t\(\.task).cancel() (prepared)"

        static func weight(in program: ProgramBuilder) -> Int { program.unstarted.isEmpty && program.started.isEmpty ? 0 : 2 }

        static func generate(into program: inout ProgramBuilder) {
            guard let task = program.rng.pick(program.unstarted + program.started) else { return }
            program.add(.cancelPrepared(CancelPrepared(task: task)))
            // Cancelled: it completes without the harness's start.
            program.dependsOnHeld[task] = false
        }

        var uses: [Use] { [.prepared(task)] }
        func renumbered(_ ids: Renumbering) -> Self { Self(task: ids.task(task)) }

        /// `cancel()` waits for handlers another thread runs (C4.1).
        var neverWaits: Bool { false }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] { [.preparedCancel] }
        var cancelledPrepared: Int? { task }

        func perform(in execution: ProgramExecution, step: Int) {
            execution.slots.prepared(task)?.cancel()
        }
    }

    public static func cancelPrepared(task: Int) -> Self { .cancelPrepared(CancelPrepared(task: task)) }
}
