extension ProgramOperation {
    /// `drop t<task>`: the driver forgets its reference to the task (C8.2).
    public struct Drop: TasklessOperation, FormattedOperation {
        public var task = 0

        static let format: StepFormat<Self> = "drop t\(\.task)"

        static func weight(in program: ProgramBuilder) -> Int { program.liveTasks.isEmpty ? 0 : 2 }

        /// Never a source's task that may still take a setter.
        static func generate(into program: inout ProgramBuilder) {
            let droppable = program.liveTasks.filter { !program.openSources.contains($0) && !program.completedSources.contains($0) }
            guard let task = program.rng.pick(droppable) else { return }
            program.add(.drop(task: task))
            program.liveTasks.removeAll { $0 == task }
            program.intTasks.removeAll { $0 == task }
            program.groups.removeAll { $0 == task }
        }

        var uses: [Use] { [.lastUse(task)] }
        func renumbered(_ ids: Renumbering) -> Self { Self(task: ids.task(task)) }

        var neverWaits: Bool { true }
        var blocking: Blocking { .untilEarlierUses }
        var registersOrCompletes: Bool { false }
        var entryPoints: [EntryPoint] { [] }

        func perform(in execution: ProgramExecution, step: Int) {
            execution.slots.drop(task)
        }
    }

    public static func drop(task: Int) -> Self { .drop(Drop(task: task)) }
}
