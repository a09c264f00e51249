extension ProgramOperation {
    /// A setter on `source`'s task: a `try` setter (`trySucceed`, `tryFail`, `tryCancel`), or,
    /// `throwing`, one that throws when it loses (C1.2, C1.3).
    public struct Complete: TasklessOperation {
        public var source: Int
        public var outcome: SetterOutcome
        public var throwing: Bool

        public init(source: Int, outcome: SetterOutcome, throwing: Bool) {
            self.source = source
            self.outcome = outcome
            self.throwing = throwing
        }

        static let kind = OperationKind.complete
        public var description: String { "t\(source).\(throwing ? "" : "try")\(outcome.rawValue)" }
        var operation: ProgramOperation { .complete(self) }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                guard let source = s.id("t"), s.take(".") else { return nil }
                let throwing = !s.take("try")
                return s.oneOf(SetterOutcome.self).map { Self(source: source, outcome: $0, throwing: throwing) }
            }
        }

        static func weight(in program: ProgramBuilder) -> Int { program.hasSources ? 18 : 0 }

        /// One setter, or a burst of up to three from different drivers racing on one source (C1.2).
        static func generate(into program: inout ProgramBuilder) {
            let preferOpen = !program.openSources.isEmpty && (program.completedSources.isEmpty || program.rng.chance(75))
            guard let source = program.rng.pick(preferOpen ? program.openSources : program.completedSources) else { return }
            let count = program.rng.chance(30) ? program.rng.int(in: 2...3) : 1
            for _ in 0..<count {
                program.add(.complete(source: source, outcome: program.setterOutcome(), throwing: program.rng.chance(30)))
            }
            if let index = program.openSources.firstIndex(of: source) {
                program.openSources.remove(at: index)
                program.completedSources.append(source)
            }
        }

        var uses: [Use] { [.source(source)] }
        var createdToken: Int? { nil }
        func renumbered(_ ids: Renumbering) -> Self { Self(source: ids.task(source), outcome: outcome, throwing: throwing) }

        var neverWaits: Bool { true }
        var outsideWork: OutsideWork { .none }
        var blocking: Blocking { .never }
        var registersOrCompletes: Bool { true }

        func perform(in execution: ProgramExecution, step: Int) {
            guard let completionSource = execution.slots.source(source) else { return }
            execution.payloads.write(step)
            let completion = ProgramExecution.completion(outcome, value: ProgramValues.value(step: step))
            if throwing {
                do {
                    try completionSource.complete(completion)
                    execution.log.append(.setter(step: step, source: source, won: true, threw: nil))
                } catch {
                    execution.log.append(.setter(step: step, source: source, won: false, threw: ErrorValue(error)))
                }
            } else {
                let won = completionSource.tryComplete(completion)
                execution.log.append(.setter(step: step, source: source, won: won, threw: nil))
            }
        }
    }

    /// A setter on `source`'s task (`throwing`: `succeed`/`fail`/`cancel`, else the `try` ones).
    public static func complete(source: Int, outcome: SetterOutcome, throwing: Bool) -> Self {
        .complete(Complete(source: source, outcome: outcome, throwing: throwing))
    }
}
