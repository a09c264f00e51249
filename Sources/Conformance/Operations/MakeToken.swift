import TaskAPI

extension ProgramOperation {
    /// `k<token> = makeCancellationSource(linkedTo: k<linkedTo>)`: a new cancellation source,
    /// optionally linked to another one (C4.6).
    public struct MakeToken: TasklessOperation {
        public var token: Int
        public var linkedTo: Int?

        public init(token: Int, linkedTo: Int?) {
            self.token = token
            self.linkedTo = linkedTo
        }

        static let kind = OperationKind.makeToken
        public var description: String { "k\(token) = makeCancellationSource(\(linkedTo.map { "linkedTo: k\($0)" } ?? ""))" }
        var operation: ProgramOperation { .makeToken(self) }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                guard let token = s.id("k"), s.take(" = makeCancellationSource(") else { return nil }
                if s.take(")") { return Self(token: token, linkedTo: nil) }
                guard s.take("linkedTo: "), let parent = s.id("k"), s.take(")") else { return nil }
                return Self(token: token, linkedTo: parent)
            }
        }

        static func weight(in program: ProgramBuilder) -> Int { 5 }

        static func generate(into program: inout ProgramBuilder) {
            let parent = program.rng.chance(30) ? program.rng.pick(program.tokens) : nil
            program.add(.makeToken(token: program.nextToken, linkedTo: parent))
            program.tokens.append(program.nextToken)
            program.nextToken += 1
        }

        var uses: [Use] { linkedTo.map { [.token($0)] } ?? [] }
        var createdToken: Int? { token }
        func renumbered(_ ids: Renumbering) -> Self { Self(token: ids.token(token), linkedTo: linkedTo.map(ids.token)) }

        var neverWaits: Bool { true }
        var outsideWork: OutsideWork { .none }
        var blocking: Blocking { .never }
        var registersOrCompletes: Bool { true }

        func perform(in execution: ProgramExecution, step: Int) {
            let source: any CancellationSource
            if let linkedTo, let parent = execution.slots.token(linkedTo) {
                source = execution.backend.makeCancellationSource(linkedTo: [parent.token])
            } else {
                source = execution.backend.makeCancellationSource()
            }
            execution.slots.putToken(token, source)
        }
    }

    public static func makeToken(token: Int, linkedTo: Int?) -> Self { .makeToken(MakeToken(token: token, linkedTo: linkedTo)) }
}
