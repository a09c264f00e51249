import Synchronization
import TaskAPI

extension ProgramOperation {
    /// An async loop of `steps` steps on `executor`: each step registers the next on a completed
    /// task, from inside the previous step's continuation. C2.7's decision queues a registration
    /// made while inline work runs behind that work, so on the inline executor the loop runs as
    /// a loop; a backend that runs it in place recurses once per step (and overflows the stack on
    /// a long loop). Logs how much deeper the last step ran than the first, and the outcome;
    /// `ProbeChecks` judges both (C2.7). On the default and serial executors the loop runs on the
    /// backend's own executors, as nested waits do, even in a controlled run.
    public struct AsyncLoop: TasklessOperation, FormattedOperation {
        public var steps = 0
        public var executor: ExecutorRef = .default

        static let format: StepFormat<Self> = "async loop of \(\.steps) steps on \(\.executor)"

        static func weight(in program: ProgramBuilder) -> Int { 1 }

        /// Inline loops long enough that a recursion shows in the stack (2 KiB a step in a debug
        /// build), short enough that it cannot overflow a driver's (1 MiB); the others (on the
        /// backend's threads) only where programs may use work outside a controlled run.
        static func generate(into program: inout ProgramBuilder) {
            if program.usesOutsideWork, program.rng.chance(40) {
                let executor: ExecutorRef = program.rng.chance(50) ? .default : .serial(0)
                program.add(.asyncLoop(AsyncLoop(steps: program.rng.int(in: 50...150), executor: executor)))
            } else {
                program.add(.asyncLoop(AsyncLoop(steps: program.rng.int(in: 100...150), executor: .inline)))
            }
        }

        var uses: [Use] { [] }
        func renumbered(_ ids: Renumbering) -> Self { self }

        var neverWaits: Bool { false }
        var outsideWork: OutsideWork { executor == .inline ? .none : .duringStep }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] {
            let on: [EntryPoint]
            switch executor {
            case .inline: on = [.inlineExecutor]
            case .default: on = [.defaultExecutor]
            case .serial, .counting: on = [.makeSerialExecutor]
            }
            return [.succeeded, .whenCompleteOn, .makeSourceOfType, .sourceTask, .trySucceed, .waitTimeout] + on
        }

        func perform(in execution: ProgramExecution, step: Int) {
            let backend = execution.backend
            let executor: any AsyncTaskExecutor
            switch self.executor {
            case .inline: executor = backend.inlineExecutor
            case .default: executor = backend.defaultExecutor
            case .serial, .counting: executor = backend.makeSerialExecutor(label: "conformance.loop")
            }
            let (steps, thread) = (self.steps, ThreadInfo.number)
            let depths = PlainLocked<[Int: UInt]>([:])
            let completed = backend.succeeded(0)
            let done = backend.makeSource(of: Int.self)
            @Sendable func loop(_ index: Int) {
                if index == 1 || index == steps, ThreadInfo.number == thread {
                    var marker = 0
                    let address = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
                    depths.withLock { $0[index] = address }
                }
                if index == steps {
                    done.trySucceed(steps)
                    return
                }
                completed.whenComplete(on: executor) { _ in loop(index + 1) }
            }
            loop(0)
            let result = execution.boundedWait(done.task, limit: execution.timingSlack, step: step)
            let seen = depths.withLock { $0 }
            var growth: Int?
            if let first = seen[1], let last = seen[steps] { growth = Int(bitPattern: first) - Int(bitPattern: last) }
            execution.log.append(.asyncLoopRan(step: step, stackGrowth: growth, result: result.map { Outcome($0) }))
        }
    }

    public static func asyncLoop(steps: Int, executor: ExecutorRef) -> Self { .asyncLoop(AsyncLoop(steps: steps, executor: executor)) }
}

extension ProgramOperation.AsyncLoop {
    /// A recursion deeper than this from the first step to the last is one: fewer than a long
    /// chain's (100-150 steps, so that a recursion cannot overflow a driver's stack), since every
    /// step of a loop runs at the first one's depth.
    static let recursionDepth = 16 * 1024

    /// The async loop ran as a loop (its last step at about its first one's depth: each
    /// registration made inside the previous step's inline continuation was queued behind it,
    /// C2.7's decision) and completed with its length.
    func judgeProbe(_ event: EventKind, step: Int, slack: Duration) -> ProbeJudgement? {
        guard case .asyncLoopRan(_, let growth, let result) = event else { return nil }
        return .stackProbe(
            growth: growth, depth: Self.recursionDepth, result: result, expected: steps,
            recursed: { kib in
                Finding(
                    .c2_7,
                    "step \(step): an async loop of \(steps) steps on \(executor) recursed: each registration on a "
                        + "completed task ran in place, inside the inline continuation that made it",
                    expected: "a loop: a registration made while inline work runs is queued behind it",
                    observed: "the last step \(kib) KiB deeper than the first")
            },
            wrong: { observed in
                // Each step is one continuation on a completed task: one that never ran was lost (C2.1).
                Finding(
                    .c2_1,
                    "step \(step): an async loop of \(steps) steps on \(executor) did not complete with \(steps): "
                        + "a step's continuation never ran", expected: "success(\(steps))", observed: observed)
            })
    }
}
