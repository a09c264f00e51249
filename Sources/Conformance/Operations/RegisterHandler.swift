extension ProgramOperation {
    /// `h<handler> = k<token>.register { }`: user handler `h<handler>` on cancellation source
    /// `k<token>`, or (`viaToken`) on its token, which logs when it runs (C4.2).
    public struct RegisterHandler: TasklessOperation, FormattedOperation {
        public var handler = 0
        public var token = 0
        /// Registered through the token (`CancellationToken.register`), not the source.
        public var viaToken = false

        public init(handler: Int, token: Int, viaToken: Bool = false) {
            self.handler = handler
            self.token = token
            self.viaToken = viaToken
        }

        /// A blank payload, which `format` reads a text into.
        init() {}

        static let format: StepFormat<Self> = "h\(\.handler) = k\(\.token)\(\.viaToken, ".token").register { }"

        static func weight(in program: ProgramBuilder) -> Int { program.tokens.isEmpty ? 0 : 4 }

        static func generate(into program: inout ProgramBuilder) {
            program.add(
                .registerHandler(
                    RegisterHandler(
                        handler: program.handlers, token: program.rng.pick(program.tokens) ?? 0,
                        viaToken: program.rng.chance(40))))
            program.handlers += 1
        }

        var uses: [Use] { [.token(token)] }
        func renumbered(_ ids: Renumbering) -> Self { Self(handler: handler, token: ids.token(token), viaToken: viaToken) }

        var neverWaits: Bool { true }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] { viaToken ? [.tokenRegister] + tokenEntryPoints(token) : [.register] }
        var registeredHandler: HandlerRegistration? { HandlerRegistration(handler: handler, token: token) }

        func perform(in execution: ProgramExecution, step: Int) {
            guard let source = execution.slots.token(token) else { return }
            let (log, h, seated) = (execution.log, handler, execution.seated)
            let handler: @Sendable () -> Void = {
                ProgramExecution.jobPoint(seated: seated)
                log.append(.handlerRan(handler: h))
            }
            execution.extras.keep(viaToken ? execution.token(token).register(handler) : source.register(handler), handler: h)
        }
    }

    public static func registerHandler(handler: Int, token: Int) -> Self {
        .registerHandler(RegisterHandler(handler: handler, token: token))
    }
}
