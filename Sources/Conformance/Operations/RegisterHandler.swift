extension ProgramOperation {
    /// `h<handler> = k<token>.register { }`: user handler `h<handler>` on token `k<token>`, which
    /// logs when it runs (C4.2).
    public struct RegisterHandler: TasklessOperation {
        public var handler: Int
        public var token: Int

        public init(handler: Int, token: Int) {
            self.handler = handler
            self.token = token
        }

        static let kind = OperationKind.registerHandler
        public var description: String { "h\(handler) = k\(token).register { }" }
        var operation: ProgramOperation { .registerHandler(self) }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                guard let handler = s.id("h"), s.take(" = "), let token = s.id("k"), s.take(".register { }") else { return nil }
                return Self(handler: handler, token: token)
            }
        }

        static func weight(in program: ProgramBuilder) -> Int { program.tokens.isEmpty ? 0 : 4 }

        static func generate(into program: inout ProgramBuilder) {
            program.add(.registerHandler(handler: program.handlers, token: program.rng.pick(program.tokens) ?? 0))
            program.handlers += 1
        }

        var uses: [Use] { [.token(token)] }
        var createdToken: Int? { nil }
        func renumbered(_ ids: Renumbering) -> Self { Self(handler: handler, token: ids.token(token)) }

        var neverWaits: Bool { true }
        var outsideWork: OutsideWork { .none }
        var blocking: Blocking { .never }
        var registersOrCompletes: Bool { true }

        func perform(in execution: ProgramExecution, step: Int) {
            guard let source = execution.slots.token(token) else { return }
            let (log, h) = (execution.log, handler)
            execution.extras.keep(source.register { log.append(.handlerRan(handler: h)) }, handler: h)
        }
    }

    public static func registerHandler(handler: Int, token: Int) -> Self {
        .registerHandler(RegisterHandler(handler: handler, token: token))
    }
}
