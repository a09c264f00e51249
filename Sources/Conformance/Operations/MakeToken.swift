import TaskAPI

extension ProgramOperation {
    /// `k<token> = makeCancellationSource(linkedTo: [k<parent>, ...])`: a new cancellation
    /// source, linked to none, one or several others: cancelled when any of them is (C4.6).
    public struct MakeToken: TasklessOperation, FormattedOperation {
        public var token = 0
        public var linkedTo: [Int] = []

        static let format: StepFormat<Self> = "k\(\.token) = makeCancellationSource(\(\.linkedTo, prefix: "linkedTo: ", id: "k"))"

        static func weight(in program: ProgramBuilder) -> Int { 5 }

        static func generate(into program: inout ProgramBuilder) {
            let parents = program.rng.chance(30) ? program.rng.subset(of: program.tokens, count: program.rng.int(in: 1...3)) : []
            program.add(.makeToken(token: program.nextToken, linkedTo: parents))
            program.tokens.append(program.nextToken)
            program.nextToken += 1
        }

        var uses: [Use] { linkedTo.map(Use.token) }
        var createdToken: Int? { token }
        func renumbered(_ ids: Renumbering) -> Self { Self(token: ids.token(token), linkedTo: linkedTo.map(ids.token)) }

        var neverWaits: Bool { true }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] {
            linkedTo.isEmpty ? [.makeCancellationSource] : [.makeCancellationSourceLinked] + linkedTo.flatMap(tokenEntryPoints)
        }
        var tokenParents: [Int] { linkedTo }

        func perform(in execution: ProgramExecution, step: Int) {
            let source: any CancellationSource
            if linkedTo.isEmpty {
                source = execution.backend.makeCancellationSource()
            } else {
                let parents = linkedTo.filter { execution.slots.token($0) != nil }.map { execution.token($0) }
                source = execution.backend.makeCancellationSource(linkedTo: parents)
            }
            execution.slots.putToken(token, source)
            execution.watchFreed(linkedTo.isEmpty ? "k\(token)" : "k\(token) (linked)", source)
        }
    }

    public static func makeToken(token: Int, linkedTo: [Int]) -> Self { .makeToken(MakeToken(token: token, linkedTo: linkedTo)) }

    /// A source linked to one parent, or none.
    public static func makeToken(token: Int, linkedTo: Int?) -> Self {
        .makeToken(MakeToken(token: token, linkedTo: linkedTo.map { [$0] } ?? []))
    }
}
