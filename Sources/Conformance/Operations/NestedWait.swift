import Synchronization
import TaskAPI

extension ProgramOperation {
    /// A body on the default executor that runs and `wait()`s a body that does the same,
    /// `depth` deep, awaited by the driver (C6.4): logged, and judged by `ProbeChecks`.
    public struct NestedWait: OutsideWorkProbe, FormattedOperation {
        public var depth = 0

        static let format: StepFormat<Self> = "run(on: default) { wait() } nested \(\.depth) deep"

        static func generate(into program: inout ProgramBuilder) {
            program.add(.nestedWait(depth: program.rng.chance(30) ? 16 : program.rng.int(in: 2...8)))
        }

        var neverWaits: Bool { false }
        /// The blocked bodies need the backend's own threads, even in a controlled run.
        var outsideWork: OutsideWork { .duringStep }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] { [.defaultExecutor, .run, .wait, .waitTimeout, .isCompleted] }

        /// The time C6.4 gives the whole nest: 1 s, plus the timing slack.
        static func limit(slack: Duration) -> Duration { .seconds(1) + slack }

        /// Waits for the nest at most `limit(slack:)`; logs how long it took, its result (nil: not
        /// in time), the first level done whose waiter had not returned (a lost wake-up), and when
        /// the outermost body returned (a nest done in time that the timed wait missed is C6.2's).
        func perform(in execution: ProgramExecution, step: Int) {
            let backend = execution.backend
            // The backend's own default executor, even in controlled mode: the blocked bodies need
            // real threads, which the one controlled thread cannot give them.
            let executor = backend.defaultExecutor
            // Every level's task by the depth left: the body of level r + 1 waits on level r.
            let levels = PlainLocked<[Int: any AsyncTask<Int>]>([:])
            @Sendable func level(_ remaining: Int) -> Int {
                if remaining <= 1 { return 1 }
                let inner = backend.run(on: executor, token: .none) { _ in level(remaining - 1) }
                levels.withLock { $0[remaining - 1] = inner }
                return (inner.wait().value ?? -1_000) + 1
            }
            let start = Uptime.now
            let nestDone = PlainLocked<Duration?>(nil)
            let top = backend.run(on: executor, token: .none) { [depth] _ in
                let value = level(depth)
                nestDone.withLock { $0 = Uptime.now - start }
                return value
            }
            levels.withLock { $0[depth] = top }
            let result = execution.boundedWait(top, limit: Self.limit(slack: execution.timingSlack), step: step)
            let elapsed = Uptime.now - start
            let tasks = levels.withLock { $0 }
            let lostWakeup = tasks.keys.sorted().first { r in
                tasks[r]?.isCompleted == true && tasks[r + 1].map { !$0.isCompleted } == true
            }
            execution.log.append(
                .nestedWaitReturned(
                    step: step, elapsed: elapsed, result: result.map { Outcome($0) },
                    lostWakeupLevel: lostWakeup, nestDone: nestDone.withLock { $0 }))
        }
    }

    public static func nestedWait(depth: Int) -> Self { .nestedWait(NestedWait(depth: depth)) }
}

extension ProgramOperation.NestedWait {
    /// The nest completed with `depth` within 1 s plus the slack (C6.4); a level done whose waiter
    /// never returned, a lost wake-up (C6.3); a nest whose outermost body returned a slack before
    /// the deadline, which the timed wait still missed (C6.2: the nest was in time, the wait was
    /// not). A `nil` before the timeout is C6.2's too, reported by `TimingChecks` (the wait is
    /// `ProgramExecution.boundedWait`, which waits on to the deadline).
    func judgeProbe(_ event: EventKind, step: Int, slack: Duration) -> ProbeJudgement? {
        guard case .nestedWaitReturned(_, let elapsed, let result, let lost, let nestDone) = event else { return nil }
        let limit = Self.limit(slack: slack)
        let ms = elapsed.nanoseconds / 1_000_000
        var finding: Finding?
        if result == nil, let done = nestDone, done + slack < limit {
            // The task completed when its body returned, or at most a slack later: the wait on it
            // slept through that completion to its deadline.
            finding = Finding(
                .c6_2,
                "step \(step): wait(timeout: \(limit)) on \(depth) bodies nested in wait() returned nil, though the outermost body returned after \(done.nanoseconds / 1_000_000) ms",
                expected: "the task's outcome, once it completed before the deadline",
                observed: "nil after \(ms) ms")
        } else if result == nil, let lost {
            // Not a starved pool: a body's wait() on a completed task never returned.
            finding = Finding(
                .c6_3,
                "step \(step): level \(depth - lost + 1) of \(depth) bodies nested in wait() completed, but the wait() on it never returned",
                expected: "wait() returns at completion", observed: "still blocked after \(ms) ms")
        } else if result == nil {
            finding = Finding(
                .c6_4, "step \(step): \(depth) bodies nested in wait() on the default executor did not complete in \(limit)",
                expected: "done within 1 s (plus slack)", observed: "still blocked after \(ms) ms")
        } else if result != .success(depth) {
            finding = Finding(
                .c6_4, "step \(step): \(depth) bodies nested in wait() returned another result",
                expected: "success(\(depth))", observed: "\(result?.description ?? "nil")")
        }
        return ProbeJudgement(exercised: [finding?.rule ?? .c6_4], findings: finding.map { [$0] } ?? [])
    }
}
