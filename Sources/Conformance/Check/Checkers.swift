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
    var findings: [Finding] = []

    init(program: Program, observations: Observations, snapshot: [Bool]) {
        self.program = program
        self.observations = observations
        self.snapshot = snapshot
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
        checkSerialExclusion()
        checkCancellation()
        checkWaits()
        checkTiming()
        checkJobsRunOnce()
        checkStarts()
    }

    /// `delay(d)` succeeds, and `timeout(after: d)` times out, no earlier than `d` after the call
    /// (C5.4): the observer runs after the completion, so seeing it earlier is conclusive.
    private mutating func checkTiming() {
        for (index, step) in program.steps.enumerated() {
            let t: Int, microseconds: Int, timed: Outcome
            if case .delay(let delay) = step.operation {
                (t, microseconds, timed) = (delay.task, delay.microseconds, .success(0))
            } else if case .timeout(let timeout) = step.operation {
                (t, microseconds, timed) = (timeout.task, timeout.microseconds, .failure(.timedOut(microseconds: Int64(timeout.microseconds))))
                // The same timedOut may come from the antecedent itself, passed through.
                if observations.outcome(timeout.antecedent) == timed { continue }
            } else {
                continue
            }
            guard let seen = observations.completions[t]?.first, seen.outcome == timed,
                  let start = observations.stepStart[index]?.uptime else { continue }
            exercised.insert(.c5_4)
            let elapsed = seen.uptime >= start ? seen.uptime - start : 0
            if elapsed < UInt64(microseconds) * 1_000 {
                fail(.c5_4, "t\(t) completed with \(timed) \(elapsed / 1_000)us after step \(index) (\(step.operation))",
                     expected: "no earlier than \(microseconds)us", observed: "\(elapsed / 1_000)us")
            }
        }
    }

    private mutating func fail(_ rule: Rule, _ message: String, expected: String, observed: String, task: Int? = nil) {
        let blamed = task.flatMap(timeoutBlamed) ?? rule
        findings.append(Finding(blamed, blamed == rule ? message : "timeout(after:) completed the task it times (seen as \(rule)): " + message,
                                expected: expected, observed: observed))
    }

    /// C5.4 when task `t` is the timed task of a `timeout(after:)` and got a `timedOut` it
    /// cannot make itself: the faulty operation is the timeout, not the task (attribution).
    private func timeoutBlamed(_ t: Int) -> Rule? {
        guard case .failure(.timedOut)? = observations.outcome(t) else { return nil }
        let timed = program.steps.contains { if case .timeout(let timeout) = $0.operation { return timeout.antecedent == t } else { return false } }
        if !timed { return nil }
        if oracle.creator[t]?.operation is ProgramOperation.Timeout { return nil }
        return .c5_4
    }

    private func describe(_ t: Int) -> String {
        guard let (step, operation) = oracle.creator[t] else { return "t\(t)" }
        return "step \(step): \(operation)"
    }

    /// Exactly-once and the model's outcome for every task (C1.1, C1.2, C2.1, C2.6, C3, C5).
    private mutating func checkOutcomes() {
        for t in 0..<program.taskCount {
            let seen = observations.completions[t] ?? []
            if seen.count > 1 {
                fail(.c2_1, "the harness's continuation on t\(t) ran \(seen.count) times (\(describe(t)))",
                     expected: "1 run", observed: seen.map(\.outcome.description).joined(separator: ", "))
            }
            exercised.insert(.c2_1)
            guard case .outcomes(let allowed, let rule) = final[t], let observed = seen.first?.outcome else { continue }
            exercised.insert(rule)
            exercised.insert(.c1_1)
            if !allowed.contains(observed), observed == .failure(.abandoned) {
                // The harness released no source of this task: the closure holding it (a body's job,
                // a continuation) was dropped unrun, by the backend or by an executor (C7.3); C8.3
                // made that a failure instead of a hang.
                // A timed task's job is its timer's: a timer that never fires is C5.4's fault.
                let timed = oracle.creator[t].map { $0.operation is ProgramOperation.Delay || $0.operation is ProgramOperation.Timeout } ?? false
                fail(timed ? .c5_4 : .c2_1, "t\(t) failed abandoned: its "
                     + (timed ? "timer's job was dropped, never fired" : "body or continuation was dropped, never run")
                     + ", by the backend or by its executor (C7.3) (\(describe(t)))",
                     expected: allowed.map(\.description).joined(separator: " or ") + " (run exactly once)",
                     observed: observed.description)
            } else if !allowed.contains(observed) {
                fail(rule, "t\(t) completed with the wrong outcome (\(describe(t)))",
                     expected: allowed.map(\.description).joined(separator: " or "), observed: observed.description, task: t)
            }
        }
    }

    /// Before held sources complete: what must be done is done (C4.3, C5.1 fail-fast, C5.3), and
    /// what depends on a held source is not (C2.2, C5.1, C5.2).
    private mutating func checkPhaseOne() {
        for t in 0..<program.taskCount where t < snapshot.count {
            switch phaseOne[t] {
            case .outcomes(let allowed, let rule):
                guard program.steps.contains(where: { if case .makeSource(let make) = $0.operation { return make.held != nil } else { return false } }) else { continue }
                exercised.insert(rule)
                if !snapshot[t] {
                    fail(rule, "t\(t) did not complete although nothing it needs was pending (\(describe(t)))",
                         expected: allowed.map(\.description).joined(separator: " or ") + " before the held sources completed",
                         observed: "still pending", task: t)
                }
            case .pending:
                let rule = oracle.creator[t]?.operation.pendingRule ?? .c2_2
                exercised.insert(rule)
                if snapshot[t] {
                    fail(rule, "t\(t) completed while a task it depends on was still pending (\(describe(t)))",
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
            let kinds = Set(setters.compactMap { oracle.setterOutcome(step: $0.step).map { $0.isSuccess ? 0 : ($0 == .cancelled ? 1 : 2) } })
            if kinds.contains(1) && kinds.count > 1 { exercised.insert(.c4_5) }
            if winners.count != 1 {
                fail(.c1_2, "\(winners.count) of \(setters.count) setters on t\(source) won",
                     expected: "exactly one winner", observed: "winners at steps \(winners.map(\.step))", task: source)
            }
            for setter in setters {
                guard case .complete(let complete) = program.steps[setter.step].operation, complete.throwing else { continue }
                exercised.insert(.c1_3)
                if let threw = setter.threw, threw != .alreadyCompleted {
                    fail(.c1_3, "the setter at step \(setter.step) threw something else than alreadyCompleted",
                         expected: "TaskError.alreadyCompleted", observed: threw.description)
                }
            }
        }
        for trouble in observations.trouble {
            fail(.c1_2, "t\(trouble.task): \(trouble.detail)", expected: "true", observed: "false", task: trouble.task)
        }
    }

    /// Each body at most once, only after its antecedent completed, seeing its outcome and the
    /// data written before it (C2.1, C2.2, C3.3), on the right executor (C2.3, C2.5).
    private mutating func checkBodies() {
        for t in 0..<program.taskCount {
            guard let (_, operation) = oracle.creator[t] else { continue }
            let bodies = observations.bodies[t] ?? []
            if bodies.count > 1 {
                fail(.c2_1, "the body of t\(t) ran \(bodies.count) times (\(describe(t)))", expected: "at most once", observed: "\(bodies.count) runs")
            }
            if (observations.innerBodies[t] ?? []).count > 1 {
                fail(.c7_3, "the inner task of t\(t) ran its body twice", expected: "once", observed: "twice")
            }
            guard let body = bodies.first else { continue }
            exercised.insert(.c7_3)
            var executor: ExecutorRef = .default
            if let run = operation as? ProgramOperation.Run {
                executor = run.executor
            } else if operation is ProgramOperation.Prepare {
                executor = startExecutor(of: t)
            } else if let chain = operation as? ProgramOperation.Chain {
                let (kind, antecedent) = (chain.kind, chain.antecedent)
                executor = chain.executor
                exercised.formUnion([.c2_2, .c3_3])
                let before = observations.outcome(antecedent)
                if let input = body.input, let before {
                    if !kind.runs(on: before) {
                        fail(.c3_3, "the body of t\(t) ran on \(before), which \(kind) must skip (\(describe(t)))",
                             expected: "body skipped", observed: "body ran")
                    } else if !sameInput(input, before, kind: kind) {
                        fail(.c2_2, "the body of t\(t) saw another outcome than its antecedent's (\(describe(t)))",
                             expected: before.description, observed: input.description)
                    }
                }
                if let earliest = earliestCompletion(antecedent), body.start.seq < earliest {
                    fail(.c2_2, "the body of t\(t) started before t\(antecedent) completed (\(describe(t)))",
                         expected: "start after event #\(earliest)", observed: "started at event #\(body.start.seq)")
                }
            }
            if body.payloadOK == false {
                fail(.c2_2, "the body of t\(t) did not see the data written before its input's completion (\(describe(t)))",
                     expected: "producer's write visible", observed: "stale memory")
            }
            checkExecutor(t, body: body, executor: executor)
        }
    }

    private func sameInput(_ input: Outcome, _ before: Outcome, kind: ContinuationKind) -> Bool {
        input == before
    }

    /// The earliest event a task's completion can follow: its winning setter's start, or the end
    /// of the body that produced it.
    private func earliestCompletion(_ t: Int) -> UInt64? {
        guard let (_, operation) = oracle.creator[t] else { return nil }
        if operation is ProgramOperation.MakeSource {
            let winners = (observations.setters[t] ?? []).filter(\.won)
            return winners.compactMap { observations.stepStart[$0.step]?.seq }.min()
        }
        if operation is ProgramOperation.Run || operation is ProgramOperation.Chain {
            if let inner = observations.innerBodies[t]?.first?.end { return inner }
            return observations.bodies[t]?.first?.end
        }
        return nil
    }

    private mutating func checkExecutor(_ t: Int, body: Observations.Body, executor: ExecutorRef) {
        switch executor {
        case .counting(let n):
            exercised.formUnion([.c2_5, .c7_1])
            if body.counting != n + 1 {
                fail(.c2_5, "the body of t\(t) did not run inside counting\(n).execute (\(describe(t)))",
                     expected: "counting\(n)", observed: body.counting == 0 ? "another executor" : "counting\(body.counting - 1)")
            }
        case .default, .serial:
            exercised.insert(.c2_3)
            if body.counting != 0 {
                fail(.c2_5, "the body of t\(t) ran inside counting\(body.counting - 1)'s job (\(describe(t)))",
                     expected: "\(executor)", observed: "counting\(body.counting - 1)")
            }
            if let step = stepRunning(on: body.start), program.steps[step].operation.payload.registersOrCompletes {
                fail(.c2_3, "the body of t\(t), on \(executor), ran inside step \(step) (\(program.steps[step].operation)) (\(describe(t)))",
                     expected: "never inside the registering or completing call", observed: "ran on that call's thread before it returned")
            }
        case .inline:
            break
        }
    }

    /// The step a driver thread was inside when `event` happened, if it was one.
    private func stepRunning(on event: Event) -> Int? {
        guard event.driver > 0, event.driver <= program.drivers else { return nil }
        let driver = event.driver - 1
        var candidate: Int?
        for (index, step) in program.steps.enumerated() where step.driver == driver {
            guard let start = observations.stepStart[index]?.seq, start < event.seq else { break }
            candidate = index
        }
        guard let step = candidate else { return nil }
        if let end = observations.stepEnd[step], end < event.seq { return nil }
        return step
    }

    /// Continuations of one task on one serial executor run in registration order (C2.4).
    private mutating func checkRegistrationOrder() {
        var groups: [String: [(step: Int, task: Int)]] = [:]
        for (index, step) in program.steps.enumerated() {
            guard case .chain(let chain) = step.operation, case .serial(let n) = chain.executor else { continue }
            groups["\(chain.antecedent)/\(n)", default: []].append((index, chain.task))
        }
        for (_, chains) in groups.sorted(by: { $0.key < $1.key }) where chains.count > 1 {
            for i in 0..<chains.count {
                for j in 0..<chains.count where i != j {
                    let a = chains[i], b = chains[j]
                    guard let aEnd = observations.stepEnd[a.step], let bStart = observations.stepStart[b.step]?.seq,
                          aEnd < bStart,
                          let aBody = observations.bodies[a.task]?.first, let bBody = observations.bodies[b.task]?.first
                    else { continue }
                    exercised.insert(.c2_4)
                    if bBody.start.seq < aBody.start.seq {
                        fail(.c2_4, "t\(b.task) (registered at step \(b.step)) ran before t\(a.task) (registered earlier, at step \(a.step)) on the same serial executor",
                             expected: "t\(a.task) first", observed: "t\(b.task) first")
                    }
                }
            }
        }
    }

    /// Bodies on one serial executor never overlap (C7.2).
    private mutating func checkSerialExclusion() {
        var bySerial: [Int: [(task: Int, body: Observations.Body)]] = [:]
        for step in program.steps {
            let t: Int, ref: ExecutorRef
            if case .run(let run) = step.operation {
                (t, ref) = (run.task, run.executor)
            } else if case .chain(let chain) = step.operation {
                (t, ref) = (chain.task, chain.executor)
            } else {
                continue
            }
            guard case .serial(let n) = ref, let body = observations.bodies[t]?.first else { continue }
            bySerial[n, default: []].append((t, body))
        }
        for (n, bodies) in bySerial.sorted(by: { $0.key < $1.key }) where bodies.count > 1 {
            exercised.insert(.c7_2)
            let sorted = bodies.sorted { $0.body.start.seq < $1.body.start.seq }
            for (a, b) in zip(sorted, sorted.dropFirst()) {
                if let end = a.body.end, b.body.start.seq < end {
                    fail(.c7_2, "the bodies of t\(a.task) and t\(b.task) overlapped on serial\(n)",
                         expected: "one job at a time", observed: "t\(b.task) started before t\(a.task) ended")
                }
            }
        }
    }

    /// A body never starts after its token's cancel() returned (C4.3); checkpoint() throws
    /// exactly when cancellation was requested (C4.4).
    ///
    /// "Cancelled" starts when the first `cancel()` step on the token or on a source it is linked
    /// to returned, whichever call ran the handlers: by C4.1 every `cancel()` returns only after
    /// the handlers registered before the first one ran (a `cancel(after:)` timer's included), so
    /// the linked token is cancelled by then too. The exception of C4.1, a `cancel()` from inside
    /// a handler on the thread running them, never happens in a program: steps run on drivers,
    /// never inside handlers.
    private mutating func checkCancellation() {
        var cancelSteps: [Int: [Int]] = [:]
        var delayed: Set<Int> = []
        for (index, step) in program.steps.enumerated() {
            if case .cancel(let cancel) = step.operation {
                if cancel.afterMicroseconds == nil { cancelSteps[cancel.token, default: []].append(index) } else { delayed.insert(cancel.token) }
            }
        }
        for (index, step) in program.steps.enumerated() {
            guard let (t, token) = bodyToken(of: step.operation) else { continue }
            let lineage = oracle.tokenLineage(token)
            let cancels = lineage.flatMap { cancelSteps[$0] ?? [] }
            let cancelledBy = cancels.compactMap { observations.stepEnd[$0] }.min()
            let requestedBy = cancels.compactMap { observations.stepStart[$0]?.seq }.min()
            if lineage.count > 1 || lineage.contains(where: { delayed.contains($0) }) { exercised.insert(.c4_6) }
            if cancels.count > 1 { exercised.insert(.c4_1) }
            // The body's job decides to start at some moment before the body logs its start,
            // so only a cancellation that returned before the job could exist is conclusive:
            // before the step made the task, and before its antecedent completed.
            if let body = observations.bodies[t]?.first, let cancelledBy,
               let made = observations.stepStart[index]?.seq {
                exercised.insert(.c4_3)
                var earliestJob = made
                if case .chain(let chain) = step.operation {
                    earliestJob = max(made, earliestCompletion(chain.antecedent) ?? made)
                }
                if cancelledBy < earliestJob {
                    fail(.c4_3, "the body of t\(t) started although its token k\(token) was cancelled before it could start (\(describe(t)))",
                         expected: "body never starts; task cancelled", observed: "body started at event #\(body.start.seq)")
                }
            }
            for checkpoint in observations.checkpoints[t] ?? [] {
                exercised.insert(.c4_4)
                if !checkpoint.threw, let cancelledBy, cancelledBy < checkpoint.seq {
                    fail(.c4_4, "checkpoint() in t\(t) did not throw after k\(token) was cancelled (\(describe(t)))",
                         expected: "CancellationError", observed: "returned")
                }
                let mayBeDelayed = lineage.contains { delayed.contains($0) }
                if checkpoint.threw, !mayBeDelayed, requestedBy.map({ $0 > checkpoint.seq }) ?? true {
                    fail(.c4_4, "checkpoint() in t\(t) threw although k\(token) was not cancelled (\(describe(t)))",
                         expected: "returns", observed: "CancellationError")
                }
            }
        }
    }

    /// The task a step's body belongs to and the token it was given, if it has both.
    private func bodyToken(of operation: ProgramOperation) -> (task: Int, token: Int)? {
        if case .run(let run) = operation, let token = run.token { return (run.task, token) }
        if case .chain(let chain) = operation, let token = chain.token { return (chain.task, token) }
        if case .prepare(let prepare) = operation, let token = prepare.token { return (prepare.task, token) }
        if case .runAsync(let runAsync) = operation, let token = runAsync.token { return (runAsync.task, token) }
        return nil
    }

    /// wait() returns the outcome (C6.1), wait(timeout:) returns nil only if the task was not
    /// done when the call began (C6.2), await returns it too (C6.5) or stops with
    /// CancellationError when cancelled (C4.7).
    private mutating func checkWaits() {
        for wait in observations.waits {
            guard let outcome = observations.outcome(wait.task) else { continue }
            let timed: Bool
            if case .wait(let call) = program.steps[wait.step].operation { timed = call.timeoutMicroseconds != nil } else { timed = false }
            let rule: Rule = timed ? .c6_2 : .c6_1
            exercised.insert(rule)
            if let result = wait.result {
                if result != outcome {
                    fail(rule, "step \(wait.step) (\(program.steps[wait.step].operation)) returned another outcome than the task's",
                         expected: outcome.description, observed: result.description)
                }
            } else if let done = observations.completedBy(wait.task), let start = observations.stepStart[wait.step]?.seq, done < start {
                fail(.c6_2, "step \(wait.step) (\(program.steps[wait.step].operation)) timed out on a task completed before the call",
                     expected: outcome.description, observed: "nil")
            }
        }
        for status in observations.statuses {
            exercised.insert(.c1_5)
            if status.status != TaskStatus.completed.description {
                fail(.c1_5, "t\(status.task).status after step \(status.step) (\(program.steps[status.step].operation)) returned",
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
            let cancelled: Bool
            if case .await(let call) = program.steps[awaited.step].operation {
                cancelled = call.cancelled
            } else {
                cancelled = program.steps[awaited.step].operation.kind == .awaitThenCancel
            }
            let expected = Self.awaitedForm(outcome)
            exercised.insert(cancelled ? .c4_7 : .c6_5)
            if awaited.result != expected && !(cancelled && awaited.result == .cancelled) {
                fail(cancelled ? .c4_7 : .c6_5, "step \(awaited.step) (\(program.steps[awaited.step].operation)) got another result than the task's outcome",
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
