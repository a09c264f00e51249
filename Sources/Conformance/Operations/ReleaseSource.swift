extension ProgramOperation {
    /// `release t<source>'s source`: the harness releases its last reference to the source (it
    /// keeps the task). A source released pending fails its task with `abandoned`; a completed
    /// one changes nothing (C8.3). No setter on it follows.
    public struct ReleaseSource: TasklessOperation, FormattedOperation {
        public var source = 0

        static let format: StepFormat<Self> = "release t\(\.source)\'s source"

        static func weight(in program: ProgramBuilder) -> Int { program.hasSources ? 3 : 0 }

        /// A pending source (its task fails `abandoned`) or a completed one (nothing changes).
        static func generate(into program: inout ProgramBuilder) {
            // Not a source a host may still set: the host keeps it, so it may outlive its release.
            let open = program.openSources.filter { !program.hostedSetters.contains($0) }
            let completed = program.completedSources.filter { !program.hostedSetters.contains($0) }
            let pending = !open.isEmpty && (completed.isEmpty || program.rng.chance(60))
            guard let source = program.rng.pick(pending ? open : completed) else { return }
            program.add(.releaseSource(source: source))
            program.openSources.removeAll { $0 == source }
            program.completedSources.removeAll { $0 == source }
            program.releasedSources.append(source)
        }

        var uses: [Use] { [.lastSetter(source)] }
        func renumbered(_ ids: Renumbering) -> Self { Self(source: ids.task(source)) }

        var neverWaits: Bool { true }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] { [] }
        var releasedSource: Int? { source }

        func perform(in execution: ProgramExecution, step: Int) {
            execution.slots.releaseSource(source)
        }
    }

    public static func releaseSource(source: Int) -> Self { .releaseSource(ReleaseSource(source: source)) }
}
