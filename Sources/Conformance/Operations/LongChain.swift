import Synchronization
import TaskAPI

extension ProgramOperation {
    /// A chain of `links` `map`s on the inline executor over a new source, which the driver then
    /// completes: the chain must run as a loop, not a recursion (C2.7, at a size that cannot
    /// overflow: the stack's growth from the first link to the last is logged instead, and
    /// `ProbeChecks` judges it).
    public struct LongChain: TasklessOperation, FormattedOperation {
        public var links = 0

        static let format: StepFormat<Self> = "chain of \(\.links) maps on inline"

        static func weight(in program: ProgramBuilder) -> Int { 1 }

        static func generate(into program: inout ProgramBuilder) {
            program.add(.longChain(links: program.rng.int(in: 200...400)))
        }

        var uses: [Use] { [] }
        func renumbered(_ ids: Renumbering) -> Self { self }

        var neverWaits: Bool { false }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] { [.makeSourceOfType, .sourceTask, .inlineExecutor, .map, .trySucceed, .waitTimeout] }

        /// The maps run inside the completing call on this thread: a loop keeps every link at
        /// about the same stack depth, a recursion goes deeper with each link. Logs how much
        /// deeper the last link ran than the first, and the outcome (nil: not in time).
        func perform(in execution: ProgramExecution, step: Int) {
            let backend = execution.backend
            let thread = ThreadInfo.number
            let links = self.links
            let depths = PlainLocked<[Int: UInt]>([:])
            let source = backend.makeSource(of: Int.self)
            var task: any AsyncTask<Int> = source.task
            for link in 0..<links {
                task = task.map(on: backend.inlineExecutor, token: .none) { value in
                    if link == 0 || link == links - 1, ThreadInfo.number == thread {
                        var marker = 0
                        let address = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
                        depths.withLock { $0[link] = address }
                    }
                    return value + 1
                }
            }
            source.trySucceed(0)
            let result = execution.boundedWait(task, limit: execution.timingSlack, step: step)
            let seen = depths.withLock { $0 }
            var growth: Int?
            if let first = seen[0], let last = seen[links - 1] { growth = Int(bitPattern: first) - Int(bitPattern: last) }
            execution.log.append(.longChainRan(step: step, stackGrowth: growth, result: result.map { Outcome($0) }))
        }
    }

    public static func longChain(links: Int) -> Self { .longChain(LongChain(links: links)) }
}

extension ProgramOperation.LongChain {
    /// A recursion deeper than this from the first link to the last is one (a loop stays flat).
    static let recursionDepth = 64 * 1024

    /// The chain ran as a loop (every link at about the same depth) and completed with `links`.
    func judgeProbe(_ event: EventKind, step: Int, slack: Duration) -> ProbeJudgement? {
        guard case .longChainRan(_, let growth, let result) = event else { return nil }
        return .stackProbe(
            growth: growth, depth: Self.recursionDepth, result: result, expected: links,
            recursed: { kib in
                Finding(
                    .c2_7, "step \(step): a chain of \(links) maps on the inline executor recursed",
                    expected: "a loop: every link at about the same stack depth", observed: "the last link \(kib) KiB deeper than the first"
                )
            },
            wrong: { observed in
                Finding(
                    .c2_7, "step \(step): a chain of \(links) maps on the inline executor did not complete with \(links)",
                    expected: "success(\(links))", observed: observed)
            })
    }
}
