/// The checks of the steps that probe a rule in one go and log what they saw: a long inline
/// chain's stack growth (C2.7), nested waits on the default executor (C6.2 to C6.4), a probed
/// combinator's outcome and what it keeps once complete (C5.1 to C5.3, C5.5). Findings come in
/// the order the steps logged them.
struct ProbeChecks {
    let program: Program
    /// The configuration's timing slack: what the steps waited, and what the checks allow.
    let slack: Duration
    var exercised: RuleTally = []
    var judged: EntryPointTally
    var findings: [Finding] = []

    /// A recursion deeper than this from the first link to the last is one (a loop stays flat).
    static let recursionDepth = 64 * 1024
    /// The same for an async loop's steps, fewer (100-150, so that a recursion cannot overflow a
    /// driver's stack): every step of a loop runs at the first one's depth.
    static let loopRecursionDepth = 16 * 1024

    init(program: Program, slack: Duration) {
        self.program = program
        self.slack = slack
        judged = EntryPointTally(program: program)
    }

    mutating func run(over events: [Event]) {
        for event in events {
            switch event.kind {
            case .longChainRan(let step, let growth, let result): checkLongChain(step: step, growth: growth, result: result)
            case .asyncLoopRan(let step, let growth, let result): checkAsyncLoop(step: step, growth: growth, result: result)
            case .nestedWaitReturned(let step, let elapsed, let result, let lost):
                checkNestedWait(step: step, elapsed: elapsed, result: result, lostWakeupLevel: lost)
            case .probedCombined(let step, let result): checkProbedOutcome(step: step, result: result)
            case .probedRetained(let step, let alive): checkProbedRetention(step: step, alive: alive)
            case .raceRoundsRan(let step, let rounds, let loss): checkRaceRounds(step: step, rounds: rounds, loss: loss)
            default: continue
            }
        }
    }

    /// The chain ran as a loop (every link at about the same depth) and completed with `links`.
    private mutating func checkLongChain(step: Int, growth: Int?, result: Outcome?) {
        guard case .longChain(let chain) = program.steps[step].operation else { return }
        let links = chain.links
        exercised.insert(.c2_7)
        judged.judge(step)
        if let growth, growth > Self.recursionDepth {
            findings.append(
                Finding(
                    .c2_7, "step \(step): a chain of \(links) maps on the inline executor recursed",
                    expected: "a loop: every link at about the same stack depth",
                    observed: "the last link \(growth / 1024) KiB deeper than the first"))
        } else if result != .success(links) {
            findings.append(
                Finding(
                    .c2_7, "step \(step): a chain of \(links) maps on the inline executor did not complete with \(links)",
                    expected: "success(\(links))", observed: result.map { "\($0)" } ?? "not completed in time"))
        }
    }

    /// The async loop ran as a loop (its last step at about its first one's depth: each
    /// registration made inside the previous step's inline continuation was queued behind it,
    /// C2.7's decision) and completed with its length.
    private mutating func checkAsyncLoop(step: Int, growth: Int?, result: Outcome?) {
        guard case .asyncLoop(let loop) = program.steps[step].operation else { return }
        exercised.insert(.c2_7)
        judged.judge(step)
        if let growth, growth > Self.loopRecursionDepth {
            findings.append(
                Finding(
                    .c2_7,
                    "step \(step): an async loop of \(loop.steps) steps on \(loop.executor) recursed: each registration on a "
                        + "completed task ran in place, inside the inline continuation that made it",
                    expected: "a loop: a registration made while inline work runs is queued behind it",
                    observed: "the last step \(growth / 1024) KiB deeper than the first"))
        } else if result != .success(loop.steps) {
            // Each step is one continuation on a completed task: one that never ran was lost (C2.1).
            exercised.insert(.c2_1)
            findings.append(
                Finding(
                    .c2_1,
                    "step \(step): an async loop of \(loop.steps) steps on \(loop.executor) did not complete with \(loop.steps): "
                        + "a step's continuation never ran", expected: "success(\(loop.steps))",
                    observed: result.map { "\($0)" } ?? "not completed in time"))
        }
    }

    /// The nest completed with `depth` within 1 s plus the slack (C6.4); a level done whose waiter
    /// never returned, a lost wake-up (C6.3). A `nil` before the timeout is C6.2's, reported by
    /// `TimingChecks` (the wait is `ProgramExecution.boundedWait`, which waits on to the deadline).
    private mutating func checkNestedWait(step: Int, elapsed: Duration, result: Outcome?, lostWakeupLevel lost: Int?) {
        guard case .nestedWait(let nest) = program.steps[step].operation else { return }
        let depth = nest.depth
        let limit = ProgramOperation.NestedWait.limit(slack: slack)
        let ms = elapsed.nanoseconds / 1_000_000
        var finding: Finding?
        if result == nil, let lost {
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
        exercised.insert(finding?.rule ?? .c6_4)
        judged.judge(step)
        if let finding { findings.append(finding) }
    }

    /// The combinator's outcome is the contract's for its inputs completed last to first (a
    /// `nil` before the timeout is C6.2's, reported by `TimingChecks`: `boundedWait`).
    private mutating func checkProbedOutcome(step: Int, result: Outcome?) {
        guard case .combineProbed(let probed) = program.steps[step].operation else { return }
        let kind = probed.kind.rawValue
        let expected = probed.expectedOutcome
        exercised.insert(probed.outcomeRule)
        judged.judge(step)
        if result != expected {
            findings.append(
                Finding(
                    probed.outcomeRule,
                    "step \(step) (\(kind) of \(probed.inputs) inputs completed last to first) completed with the wrong outcome",
                    expected: expected.description, observed: result?.description ?? "not completed in time"))
        }
    }

    /// Once complete, it keeps no input and no value it does not return (C5.5).
    private mutating func checkProbedRetention(step: Int, alive: [String]) {
        guard case .combineProbed(let probed) = program.steps[step].operation else { return }
        exercised.insert(.c5_5)
        judged.judge(step)
        guard !alive.isEmpty else { return }
        findings.append(
            Finding(
                .c5_5, "step \(step): the completed \(probed.kind.rawValue) keeps \(alive.count) of its inputs or their values alive",
                expected: "released once it completed", observed: alive.prefix(5).joined(separator: ", ")))
    }

    /// Every round of two calls started at once went as the contract says whichever came first
    /// (C6.1, C6.2, C4.2, C9.3, C1.5, C7.2, C7.3: the pair's rule).
    private mutating func checkRaceRounds(step: Int, rounds: Int, loss: ProgramOperation.RaceRounds.Loss?) {
        guard case .raceRounds(let race) = program.steps[step].operation else { return }
        exercised.formUnion(race.pair.rules)
        judged.judge(step)
        guard let loss else { return }
        findings.append(
            Finding(
                loss.rule, "step \(step) (\(race)), round \(loss.round + 1) of \(rounds): \(loss.what)",
                expected: loss.expected, observed: loss.observed))
    }
}
