extension ProgramOperation {
    /// `h<handler>.dispose()`: disposes handler `h<handler>`'s registration (C4.2).
    public struct DisposeHandler: TasklessOperation, FormattedOperation {
        public var handler = 0

        static let format: StepFormat<Self> = "h\(\.handler).dispose()"

        static func weight(in program: ProgramBuilder) -> Int { program.handlers == 0 ? 0 : 2 }

        static func generate(into program: inout ProgramBuilder) {
            program.add(.disposeHandler(handler: program.rng.below(program.handlers)))
        }

        /// Handler ids are not renumbered; a disposal of a registration that is gone does nothing.
        var uses: [Use] { [] }
        func renumbered(_ ids: Renumbering) -> Self { self }

        var neverWaits: Bool { true }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] { [] }
        var disposedHandler: Int? { handler }

        func perform(in execution: ProgramExecution, step: Int) {
            execution.extras.registration(handler)?.dispose()
        }
    }

    public static func disposeHandler(handler: Int) -> Self { .disposeHandler(DisposeHandler(handler: handler)) }
}
