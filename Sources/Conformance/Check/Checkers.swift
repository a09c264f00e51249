import TaskAPI

/// The checkers: each reads the indexed log (and the oracle's expectations) and returns the
/// rules it found broken. `exercised` collects every rule a checker actually tested.
struct Checkers {
    let program: Program
    let observations: Observations
    let oracle: Oracle
    let phaseOne: [Expectation]
    let final: [Expectation]
    /// Which tasks had completed when the drivers were done and before held sources completed.
    let snapshot: [Bool]
    var exercised: RuleTally = []
    /// The entry points each check judged (a step's calls).
    var judged: EntryPointTally
    /// The steps that make a body, with what they say of it (`BodySpec`).
    let bodySteps: [(step: Int, spec: BodySpec)]
    var findings: [Finding] = []

    init(program: Program, observations: Observations, snapshot: [Bool]) {
        self.program = program
        self.observations = observations
        self.snapshot = snapshot
        judged = EntryPointTally(program: program)
        bodySteps = Self.bodySteps(of: program)
        oracle = Oracle(program: program, observations: observations)
        phaseOne = oracle.evaluate(.phaseOne)
        final = oracle.evaluate(.final, phaseOne: phaseOne)
    }

    mutating func runAll() {
        checkOutcomes()
        checkPhaseOne()
        checkSetters()
        checkBodies()
        checkRegistrationOrder()
        checkHostedCompletions()
        checkSerialExclusion()
        checkCancellation()
        checkWaits()
        checkTiming()
        checkJobsRunOnce()
        checkStarts()
        runShapeChecks()
    }

    /// `delay(d)` succeeds, and `timeout(after: d)` times out, no earlier than `d` after the call
    /// (C5.4): the observer runs after the completion, so seeing it earlier is conclusive.
    private mutating func checkTiming() {
        for (index, step) in program.steps.enumerated() {
            guard let timer = step.operation.payload.timedCompletion else { continue }
            let (t, microseconds, timed) = (timer.task, timer.microseconds, timer.timedOutcome)
            // The same timedOut may come from the antecedent itself, passed through.
            if let antecedent = timer.antecedent, observations.outcome(antecedent) == timed { continue }
            guard let seen = observations.completions[t]?.first, seen.outcome == timed,
                let start = observations.stepStart[index]?.uptime
            else { continue }
            exercised.insert(.c5_4)
            judged.judge(index)
            let elapsed = seen.uptime >= start ? seen.uptime - start : 0
            if elapsed < UInt64(microseconds) * 1_000 {
                fail(
                    .c5_4, "t\(t) completed with \(timed) \(elapsed / 1_000)us after step \(index) (\(step.operation))",
                    expected: "no earlier than \(microseconds)us", observed: "\(elapsed / 1_000)us")
            }
        }
    }

    mutating func fail(_ rule: Rule, _ message: String, expected: String, observed: String, task: Int? = nil) {
        let blamed = task.flatMap(timeoutBlamed) ?? rule
        findings.append(
            Finding(
                blamed,
                blamed == rule ? message : "timeout(after:) completed the task it times (seen as \(rule)): " + message,
                expected: expected, observed: observed))
    }

    /// `finding`, saying so when a `wait()` of the program returned early with an error (a failure
    /// its task did not end with, as a backend that refuses to block its event loop's thread
    /// returns): what ran after it saw that error, so a finding of another rule (a status read, a
    /// prepared task's outcome, a combinator's) says so rather than hide it. The waits' own
    /// findings (C6) name the wait already.
    func noted(_ finding: Finding) -> Finding {
        let note = earlyWaitNote
        guard !note.isEmpty, !finding.rule.rawValue.hasPrefix("C6.") else { return finding }
        return Finding(finding.rule, finding.message + note, expected: finding.expected, observed: finding.observed)
    }

    private var earlyWaitNote: String {
        guard
            let early = observations.waits.first(where: { wait in
                guard case .failure? = wait.result, let outcome = observations.outcome(wait.task) else { return false }
                return wait.result != outcome
            })
        else { return "" }
        return "; note: the wait() of step \(early.step) (\(program.steps[early.step].operation)) returned "
            + "\(early.result.map(\.description) ?? "nil") early, before t\(early.task) ended "
            + "\(observations.outcome(early.task).map(\.description) ?? "pending"), and what ran after it saw that error"
    }

    /// C5.4 when task `t` is the timed task of a `timeout(after:)` and got a `timedOut` it
    /// cannot make itself: the faulty operation is the timeout, not the task (attribution).
    private func timeoutBlamed(_ t: Int) -> Rule? {
        guard case .failure(.timedOut)? = observations.outcome(t) else { return nil }
        let timed = program.steps.contains { $0.operation.payload.timedCompletion?.antecedent == t }
        if !timed { return nil }
        if oracle.creator[t]?.operation.timedCompletion?.antecedent != nil { return nil }
        return .c5_4
    }

    /// One check judged the step that made task `t`.
    mutating func judge(creatorOf t: Int) {
        if let step = oracle.creator[t]?.step { judged.judge(step) }
    }

    func describe(_ t: Int) -> String {
        guard let (step, operation) = oracle.creator[t] else { return "t\(t)" }
        return "step \(step): \(operation)"
    }

    /// Exactly-once and the model's outcome for every task (C1.1, C1.2, C2.1, C2.6, C3, C5).
    private mutating func checkOutcomes() {
        for t in 0..<program.taskCount {
            let seen = observations.completions[t] ?? []
            if seen.count > 1 {
                fail(
                    .c2_1, "the harness's continuation on t\(t) ran \(seen.count) times (\(describe(t)))",
                    expected: "1 run", observed: seen.map(\.outcome.description).joined(separator: ", "))
            }
            exercised.insert(.c2_1)
            guard case .outcomes(let allowed, let rule) = final[t], let observed = seen.first?.outcome else { continue }
            exercised.insert(rule)
            exercised.insert(.c1_1)
            judge(creatorOf: t)
            if !allowed.contains(observed), observed == .failure(.abandoned), !takesAbandoned(t) {
                // The harness released no source of this task, nor of a task it takes: the closure
                // holding it (a body's job, a continuation) was dropped unrun, by the backend or by
                // an executor (C7.3); C8.3 made that a failure instead of a hang.
                // A timed task's job is its timer's: a timer that never fires is C5.4's fault.
                let timed = oracle.creator[t]?.operation.timedCompletion != nil
                fail(
                    timed ? .c5_4 : .c2_1,
                    "t\(t) failed abandoned: its "
                        + (timed ? "timer's job was dropped, never fired" : "body or continuation was dropped, never run")
                        + ", by the backend or by its executor (C7.3) (\(describe(t)))",
                    expected: allowed.map(\.description).joined(separator: " or ") + " (run exactly once)",
                    observed: observed.description)
            } else if !allowed.contains(observed) {
                fail(
                    rule, "t\(t) completed with the wrong outcome (\(describe(t)))",
                    expected: allowed.map(\.description).joined(separator: " or "), observed: observed.description, task: t)
            }
        }
    }

    /// Whether a task `t` takes (an antecedent, an inner task, an input) failed `abandoned`: then
    /// a wrong `abandoned` of `t` is that outcome passed on where the model says it must not be
    /// (a `finallyTask` not waiting for its inner task, say), not a closure dropped unrun.
    private func takesAbandoned(_ t: Int) -> Bool {
        guard case .tasks(let inputs)? = oracle.creator[t]?.operation.dependence else { return false }
        return inputs.contains { observations.outcome($0) == .failure(.abandoned) }
    }

    /// Before held sources complete: what must be done is done (C4.3, C5.1 fail-fast, C5.3), and
    /// what depends on a held source is not (C2.2, C5.1, C5.2).
    private mutating func checkPhaseOne() {
        for t in 0..<program.taskCount where t < snapshot.count {
            switch phaseOne[t] {
            case .outcomes(let allowed, let rule):
                guard program.steps.contains(where: { $0.operation.payload.heldSource != nil }) else { continue }
                exercised.insert(rule)
                judge(creatorOf: t)
                if !snapshot[t] {
                    fail(
                        rule, "t\(t) did not complete although nothing it needs was pending (\(describe(t)))",
                        expected: allowed.map(\.description).joined(separator: " or ") + " before the held sources completed",
                        observed: "still pending", task: t)
                }
            case .pending:
                let rule = oracle.creator[t]?.operation.pendingRule ?? .c2_2
                exercised.insert(rule)
                judge(creatorOf: t)
                if snapshot[t] {
                    fail(
                        rule, "t\(t) completed while a task it depends on was still pending (\(describe(t)))",
                        expected: "pending until the held sources complete",
                        observed: observations.outcome(t)?.description ?? "completed", task: t)
                }
            case .unknown:
                break
            }
        }
    }

    /// One winner among racing setters; throwing setters throw `alreadyCompleted` exactly when
    /// they lose (C1.2, C1.3).
    private mutating func checkSetters() {
        for (source, setters) in observations.setters.sorted(by: { $0.key < $1.key }) {
            let winners = setters.filter(\.won)
            exercised.insert(.c1_2)
            judged.judge(setters.map(\.step))
            let kinds = Set(
                setters.compactMap { oracle.setterOutcome(step: $0.step).map { $0.isSuccess ? 0 : ($0 == .cancelled ? 1 : 2) } })
            if kinds.contains(1) && kinds.count > 1 { exercised.insert(.c4_5) }
            if winners.count != 1 {
                fail(
                    .c1_2, "\(winners.count) of \(setters.count) setters on t\(source) won",
                    expected: "exactly one winner", observed: "winners at steps \(winners.map(\.step))", task: source)
            }
            for setter in setters {
                guard program.steps[setter.step].operation.payload.setter?.throwing == true else { continue }
                exercised.insert(.c1_3)
                if let threw = setter.threw, threw != .alreadyCompleted {
                    fail(
                        .c1_3, "the setter at step \(setter.step) threw something else than alreadyCompleted",
                        expected: "TaskError.alreadyCompleted", observed: threw.description)
                }
            }
        }
        for trouble in observations.trouble {
            fail(.c1_2, "t\(trouble.task): \(trouble.detail)", expected: "true", observed: "false", task: trouble.task)
        }
    }

    /// wait() returns the outcome (C6.1), wait(timeout:) returns nil only if the task was not
    /// done when the call began (C6.2), await returns it too (C6.5) or stops with
    /// CancellationError when cancelled (C4.7).
    private mutating func checkWaits() {
        for wait in observations.waits {
            guard let outcome = observations.outcome(wait.task) else { continue }
            let form = program.steps[wait.step].operation.payload.waitForm
            let (timed, get) = (form?.timeoutMicroseconds != nil, form?.get ?? false)
            let rule: Rule = timed ? .c6_2 : .c6_1
            exercised.insert(rule)
            judged.judge(wait.step)
            if let result = wait.result {
                // `get()` throws the failure, or CancellationError for a cancelled task (C6.1).
                if result != (get ? Self.awaitedForm(outcome) : outcome) {
                    fail(
                        rule, "step \(wait.step) (\(program.steps[wait.step].operation)) returned another outcome than the task's",
                        expected: outcome.description, observed: result.description)
                }
            } else if let done = observations.completedBy(wait.task), let start = observations.stepStart[wait.step]?.seq, done < start {
                fail(
                    .c6_2, "step \(wait.step) (\(program.steps[wait.step].operation)) timed out on a task completed before the call",
                    expected: outcome.description, observed: "nil")
            }
        }
        for status in observations.statuses {
            exercised.insert(.c1_5)
            judged.judge(status.step)
            if status.status != TaskStatus.completed.description {
                fail(
                    .c1_5, "t\(status.task).status after step \(status.step) (\(program.steps[status.step].operation)) returned",
                    expected: "completed", observed: status.status)
            }
        }
        var blockingWaiters: [Int: Set<Int>] = [:]
        for wait in observations.waits where wait.result != nil {
            blockingWaiters[wait.task, default: []].insert(program.steps[wait.step].driver)
        }
        if blockingWaiters.values.contains(where: { $0.count > 1 }) { exercised.insert(.c6_3) }
        for awaited in observations.awaits {
            guard let outcome = observations.outcome(awaited.task) else { continue }
            let cancelled = program.steps[awaited.step].operation.payload.awaitCancels
            let expected = Self.awaitedForm(outcome)
            exercised.insert(cancelled ? .c4_7 : .c6_5)
            judged.judge(awaited.step)
            if awaited.result != expected && !(cancelled && awaited.result == .cancelled) {
                fail(
                    cancelled ? .c4_7 : .c6_5,
                    "step \(awaited.step) (\(program.steps[awaited.step].operation)) got another result than the task's outcome",
                    expected: expected.description + (cancelled ? " or CancellationError" : ""), observed: awaited.result.description)
            }
        }
    }

    /// How an outcome looks through `await value`: a thrown CancellationError reads as cancelled.
    static func awaitedForm(_ outcome: Outcome) -> Outcome {
        if case .failure(.cancellation) = outcome { return .cancelled }
        return outcome
    }
}
