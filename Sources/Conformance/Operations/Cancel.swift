import TaskAPI

extension ProgramOperation {
    /// `k<token>.cancel()`, or with `afterMicroseconds`, `k<token>.cancel(after:)` (C4.1, C4.6).
    public struct Cancel: TasklessOperation, FormattedOperation {
        public var token = 0
        /// `cancel(after:)`'s delay; `nil`: `cancel()`.
        public var afterMicroseconds: Int?

        static let format: StepFormat<Self> = "k\(\.token).cancel(\(\.afterMicroseconds, prefix: "after: ", suffix: "us"))"

        static func weight(in program: ProgramBuilder) -> Int { program.tokens.isEmpty ? 0 : 5 }

        /// `cancel(after:)` only where programs may use timers. A `cancel()` is sometimes followed
        /// by a second one, which may race it from another driver: it must return only once the
        /// first one's handlers ran (C4.1).
        static func generate(into program: inout ProgramBuilder) {
            guard let token = program.rng.pick(program.tokens) else { return }
            if program.rng.chance(30) && program.usesOutsideWork {
                program.add(.cancelAfter(token: token, microseconds: program.rng.int(in: 0...2000)))
            } else {
                program.add(.cancel(token: token))
                if program.rng.chance(30) { program.add(.cancel(token: token)) }
            }
        }

        var uses: [Use] { [.token(token)] }
        func renumbered(_ ids: Renumbering) -> Self { Self(token: ids.token(token), afterMicroseconds: afterMicroseconds) }

        /// `cancel()` waits for handlers another thread runs (C4.1).
        var neverWaits: Bool { false }
        var outsideWork: OutsideWork { afterMicroseconds == nil ? .none : .timer }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] { [afterMicroseconds == nil ? .cancel : .cancelAfter] }
        var cancellation: TokenCancel? { TokenCancel(token: token, afterMicroseconds: afterMicroseconds) }
        /// `cancel(after:)`'s timer, seen through a handler of the harness (C4.6).
        var probedTimer: ProbedTimer? { afterMicroseconds.map { ProbedTimer(rule: .c4_6, microseconds: $0, token: token) } }

        func perform(in execution: ProgramExecution, step: Int) {
            guard let source = execution.slots.token(token) else { return }
            guard let us = afterMicroseconds else {
                source.cancel()
                return
            }
            execution.armTimerProbe(on: source, step: step, microseconds: us)
            source.cancel(after: .microseconds(us))
        }
    }

    public static func cancel(token: Int) -> Self { .cancel(Cancel(token: token, afterMicroseconds: nil)) }

    public static func cancelAfter(token: Int, microseconds: Int) -> Self {
        .cancel(Cancel(token: token, afterMicroseconds: microseconds))
    }
}
