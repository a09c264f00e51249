/// The checks of bodies, over each step's `BodySpec` (what the step says of its body), never
/// over the kinds of operation: a new operation with a body is judged by declaring it.
extension Checkers {
    /// The steps that make a body, with what they say of it.
    static func bodySteps(of program: Program) -> [(step: Int, spec: BodySpec)] {
        program.steps.indices.compactMap { index in program.steps[index].operation.payload.bodySpec.map { (index, $0) } }
    }

    /// Each body at most once, only after its antecedent completed, seeing its outcome and the
    /// data written before it (C2.1, C2.2, C3.3), on the right executor (C2.3, C2.5), with its
    /// task running (C1.5) and its executor saying it is current (C9.7).
    mutating func checkBodies() {
        for (index, spec) in bodySteps {
            let t = spec.task
            let bodies = observations.bodies[t] ?? []
            if bodies.count > 1 {
                fail(
                    .c2_1, "the body of t\(t) ran \(bodies.count) times (\(describe(t)))", expected: "at most once",
                    observed: "\(bodies.count) runs")
            }
            if (observations.innerBodies[t] ?? []).count > 1 {
                fail(.c7_3, "the inner task of t\(t) ran its body twice", expected: "once", observed: "twice")
            }
            guard let body = bodies.first else { continue }
            exercised.insert(.c7_3)
            judged.judge(index)
            if let (antecedent, kind) = spec.continuation { checkInput(t, body: body, antecedent: antecedent, kind: kind, step: index) }
            if body.payloadOK == false {
                fail(
                    .c2_2, "the body of t\(t) did not see the data written before its input's completion (\(describe(t)))",
                    expected: "producer's write visible", observed: "stale memory")
            }
            switch spec.placement {
            case .on(let executor): checkExecutor(t, body: body, executor: executor)
            case .startedBy(let fallback): checkExecutor(t, body: body, executor: startExecutor(of: t, fallback: fallback))
            case .swiftTask: break
            }
            checkInside(t, spec: spec, step: index, inside: body.inside)
        }
    }

    /// A continuation's body ran on an outcome its kind takes, the antecedent's, after it.
    private mutating func checkInput(_ t: Int, body: Observations.Body, antecedent: Int, kind: ContinuationKind, step: Int) {
        exercised.formUnion([.c2_2, .c3_3])
        judged.judge(step)
        if let input = body.input, let before = observations.outcome(antecedent) {
            if !kind.runs(on: before) {
                fail(
                    .c3_3, "the body of t\(t) ran on \(before), which \(kind) must skip (\(describe(t)))",
                    expected: "body skipped", observed: "body ran")
            } else if input != before {
                fail(
                    .c2_2, "the body of t\(t) saw another outcome than its antecedent's (\(describe(t)))",
                    expected: before.description, observed: input.description)
            }
        }
        guard let earliest = earliestCompletion(antecedent), body.start.seq < earliest else { return }
        if let own = observations.bodies[antecedent]?.first?.end, own < body.start.seq,
            let rule = oracle.creator[antecedent]?.operation.pendingRule
        {
            // After the antecedent's own body, before the task that body returned ended: the
            // antecedent completed without waiting for it (C2.6, or C3.3 for finallyTask).
            fail(
                rule,
                "t\(antecedent) completed before the task its body returned did: its continuation t\(t) started first (\(describe(antecedent)))",
                expected: "t\(antecedent) completes after event #\(earliest)", observed: "t\(t) started at event #\(body.start.seq)")
        } else {
            fail(
                .c2_2, "the body of t\(t) started before t\(antecedent) completed (\(describe(t)))",
                expected: "start after event #\(earliest)", observed: "started at event #\(body.start.seq)")
        }
    }

    /// What the body read inside: its own task `running` (C1.5), its executor current, the
    /// inline executor not (C9.7).
    private mutating func checkInside(_ t: Int, spec: BodySpec, step: Int, inside: BodyReads) {
        if spec.runsTask, let status = inside.status {
            exercised.insert(.c1_5)
            judged.judge(step)
            if status != "running" {
                fail(
                    .c1_5, "t\(t).status, read inside its own body, was \(status) (\(describe(t)))",
                    expected: "running while its body runs", observed: status)
            }
        }
        guard let isCurrent = inside.isCurrent, let executor = spec.executor else { return }
        exercised.insert(.c9_7)
        judged.judge(step)
        let expected = executor != .inline
        if spec.pinned {
            // Registered on the actor pinned to the executor: the body runs as its job, isolated (C9.10).
            exercised.insert(.c9_10)
            if !isCurrent {
                fail(
                    .c9_10,
                    "the body of t\(t), registered on the actor pinned to \(executor), ran outside \(executor)'s jobs (\(describe(t)))",
                    expected: "a job of the actor's executor, isolated to the actor", observed: "\(executor).isCurrent false")
            }
        } else if isCurrent != expected {
            // False on the backend's own executor: isCurrent is wrong, or the body ran elsewhere (C2.5).
            fail(
                .c9_7,
                "\(executor).isCurrent inside the body of t\(t), registered for \(executor), was \(isCurrent)"
                    + (expected ? " (isCurrent is wrong, or the body ran on another executor: C2.5)" : "") + " (\(describe(t)))",
                expected: expected ? "true inside a job of that executor" : "false: the inline executor has no thread of its own",
                observed: "\(isCurrent)")
        }
    }

    /// The earliest event a task's completion can follow: its winning setter's start, or the end
    /// of the body that produced it (its inner task's, for a body returning a task).
    func earliestCompletion(_ t: Int) -> UInt64? {
        guard let (step, operation) = oracle.creator[t] else { return nil }
        if case .source = operation.dependence {
            let winners = (observations.setters[t] ?? []).filter(\.won)
            return winners.compactMap { observations.stepStart[$0.step]?.seq }.min()
        }
        guard program.steps[step].operation.payload.bodySpec?.runsTask == true else { return nil }
        if let inner = observations.innerBodies[t]?.first?.end { return inner }
        return observations.bodies[t]?.first?.end
    }

    private mutating func checkExecutor(_ t: Int, body: Observations.Body, executor: ExecutorRef) {
        switch executor {
        case .counting(let n):
            exercised.formUnion([.c2_5, .c7_1])
            if body.counting != n + 1 {
                fail(
                    .c2_5, "the body of t\(t) did not run inside counting\(n).execute (\(describe(t)))",
                    expected: "counting\(n)", observed: body.counting == 0 ? "another executor" : "counting\(body.counting - 1)")
            }
        case .default, .serial:
            exercised.insert(.c2_3)
            if body.counting != 0 {
                fail(
                    .c2_5, "the body of t\(t) ran inside counting\(body.counting - 1)'s job (\(describe(t)))",
                    expected: "\(executor)", observed: "counting\(body.counting - 1)")
            }
            if let step = stepRunning(on: body.start), program.steps[step].operation.payload.registersOrCompletes {
                fail(
                    .c2_3, "the body of t\(t), on \(executor), ran inside step \(step) (\(program.steps[step].operation)) (\(describe(t)))",
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

    /// The executor the winning start of prepared task `t` named; `fallback` (the prepare's) for
    /// the harness's own start.
    func startExecutor(of t: Int, fallback: ExecutorRef) -> ExecutorRef {
        guard let step = observations.starts[t]?.first(where: \.ok)?.step, step >= 0, step < program.steps.count,
            let start = program.steps[step].operation.payload.startedPrepared
        else { return fallback }
        return start.executor
    }

    /// Continuations of one task on one serial or inline executor, registered one after the
    /// other, start in that order; an inline one starts after the harness's own observer of its
    /// task, registered when the task was made (C2.4). Registered from inside inline work, an
    /// inline continuation of a task already completed is queued behind that work (C2.7).
    mutating func checkRegistrationOrder() {
        var groups: [String: [(step: Int, task: Int, span: (start: UInt64, end: UInt64))]] = [:]
        for (index, spec) in bodySteps {
            guard let (antecedent, _) = spec.continuation, let executor = spec.executor,
                let span = observations.callSpan(index, hosted: spec.host != nil)
            else { continue }
            switch executor {
            case .serial, .inline: groups["\(antecedent)/\(executor)", default: []].append((index, spec.task, span))
            case .default, .counting: break
            }
            if executor == .inline { checkInlineAfterObserver(spec, step: index, span: span, antecedent: antecedent) }
        }
        for (key, continuations) in groups.sorted(by: { $0.key < $1.key }) where continuations.count > 1 {
            for a in continuations {
                for b in continuations where a.span.end < b.span.start {
                    guard let aBody = observations.bodies[a.task]?.first, let bBody = observations.bodies[b.task]?.first else { continue }
                    exercised.insert(.c2_4)
                    judged.judge([a.step, b.step])
                    if bBody.start.seq < aBody.start.seq {
                        let on = key.split(separator: "/").last.map(String.init) ?? "the executor"
                        fail(
                            .c2_4,
                            "t\(b.task) (registered at step \(b.step)) ran before t\(a.task) (registered earlier, at step \(a.step)) on \(on)",
                            expected: "t\(a.task) first", observed: "t\(b.task) first")
                    }
                }
            }
        }
    }

    /// An inline continuation of `antecedent` starts after the harness's observer of it (which
    /// was registered first, when the task was made) ran (C2.4); registered inside inline work
    /// (an inline host) on a task completed before, it starts once that work ended (C2.7). In
    /// place is on the host's thread: a task still delivering on another thread when the host
    /// registers stores the continuation behind that delivery, which may run it there at once.
    private mutating func checkInlineAfterObserver(_ spec: BodySpec, step: Int, span: (start: UInt64, end: UInt64), antecedent: Int) {
        guard let body = observations.bodies[spec.task]?.first, let observed = observations.completedBy(antecedent) else { return }
        exercised.insert(.c2_4)
        judged.judge(step)
        if body.start.seq < observed {
            fail(
                .c2_4,
                "the inline continuation t\(spec.task) of t\(antecedent) ran before the continuation registered on t\(antecedent) "
                    + "when it was made (the harness's observer) (\(describe(spec.task)))",
                expected: "registration order: the observer first", observed: "t\(spec.task) first")
        }
        guard spec.host?.executor == .inline, observed < span.start else { return }
        exercised.insert(.c2_7)
        if body.start.seq < span.end, body.start.thread == observations.hostThread[step] {
            fail(
                .c2_7,
                "the inline continuation t\(spec.task), registered inside inline work (\(spec.host.map { "\($0)" } ?? "")) on t\(antecedent), "
                    + "which had completed, ran in place, before that work ended (\(describe(spec.task)))",
                expected: "queued behind the running inline work (C2.7's decision)",
                observed: "ran at event #\(body.start.seq), "
                    + "the work ended at #\(span.end)")
        }
    }

    /// A source completed from inside inline work (an inline host) delivers its inline
    /// continuations, the harness's observer first, behind that work (C2.7).
    mutating func checkHostedCompletions() {
        for (index, step) in program.steps.enumerated() {
            guard let setter = step.operation.payload.setter, step.operation.payload.host?.executor == .inline,
                observations.setters[setter.source]?.contains(where: { $0.step == index && $0.won }) == true,
                let span = observations.callSpan(index, hosted: true), let observed = observations.completedBy(setter.source)
            else { continue }
            exercised.insert(.c2_7)
            judged.judge(index)
            if observed < span.end {
                fail(
                    .c2_7,
                    "t\(setter.source), completed from inside inline work (step \(index): \(step.operation)), ran its inline "
                        + "continuation before that work ended", expected: "queued behind the running inline work (C2.7's decision)",
                    observed: "ran at event #\(observed), the work ended at #\(span.end)")
            }
        }
    }

    /// Bodies on one serial executor never overlap (C7.2).
    mutating func checkSerialExclusion() {
        var bySerial: [Int: [(task: Int, body: Observations.Body)]] = [:]
        for (_, spec) in bodySteps {
            guard case .serial(let n)? = spec.executor, let body = observations.bodies[spec.task]?.first else { continue }
            bySerial[n, default: []].append((spec.task, body))
        }
        for (n, bodies) in bySerial.sorted(by: { $0.key < $1.key }) where bodies.count > 1 {
            exercised.insert(.c7_2)
            for body in bodies { judge(creatorOf: body.task) }
            let sorted = bodies.sorted { $0.body.start.seq < $1.body.start.seq }
            for (a, b) in zip(sorted, sorted.dropFirst()) {
                if let end = a.body.end, b.body.start.seq < end {
                    fail(
                        .c7_2, "the bodies of t\(a.task) and t\(b.task) overlapped on serial\(n)",
                        expected: "one job at a time", observed: "t\(b.task) started before t\(a.task) ended")
                }
            }
        }
    }

    /// A body never starts after its token's cancel() returned, nor once its token's handlers
    /// began running (C4.3); checkpoint() throws exactly when cancellation was requested (C4.4).
    ///
    /// "Cancelled" starts when the first `cancel()` step on the token or on a source it is linked
    /// to (or, for a prepared task, its own `cancel()`) returned, whichever call ran the
    /// handlers: by C4.1 every `cancel()` returns only after the handlers registered before the
    /// first one ran (a `cancel(after:)` timer's included), so the linked token is cancelled by
    /// then too. The exception of C4.1, a `cancel()` from inside a handler on the thread running
    /// them, never happens in a program: steps run on drivers, never inside handlers. It starts
    /// earlier for the body's own token (issue 28): a handler of that token runs only once its
    /// cancellation was requested, so a body's job that could exist only after such a handler
    /// ran must see the request, even while `cancel()` is still running handlers.
    mutating func checkCancellation() {
        var cancelSteps: [Int: [Int]] = [:]
        var delayed: Set<Int> = []
        var handlersOfToken: [Int: [Int]] = [:]
        for (index, step) in program.steps.enumerated() {
            if let cancel = step.operation.payload.cancellation {
                if cancel.afterMicroseconds == nil {
                    cancelSteps[cancel.token, default: []].append(index)
                } else {
                    delayed.insert(cancel.token)
                }
            }
            if let register = step.operation.payload.registeredHandler {
                handlersOfToken[register.token, default: []].append(register.handler)
            }
        }
        for (index, spec) in bodySteps {
            let t = spec.task
            var prepared: [Int] = []
            if case .startedBy = spec.placement { prepared = oracle.preparedCancels(t) }
            guard spec.token != nil || !prepared.isEmpty else { continue }
            let lineage = spec.token.map { oracle.tokenLineage($0) } ?? []
            let cancels = lineage.flatMap { cancelSteps[$0] ?? [] } + prepared
            // A prepared task's body takes the prepared task's own token, linked to the one
            // given to `prepare`: a handler of the latter does not show the former requested.
            let ownHandlersBegan: UInt64? =
                if case .startedBy = spec.placement { nil } else {
                    spec.token.flatMap { token in
                        (handlersOfToken[token] ?? []).compactMap { observations.handlerRuns[$0]?.min() }.min()
                    }
                }
            let cancelledBy = (cancels.compactMap { observations.stepEnd[$0] } + [ownHandlersBegan].compactMap { $0 }).min()
            let requestedBy = cancels.compactMap { observations.stepStart[$0]?.seq }.min()
            let what = spec.token.map { "its token k\($0)" } ?? "its prepared task"
            if lineage.count > 1 || lineage.contains(where: { delayed.contains($0) }) { exercised.insert(.c4_6) }
            if cancels.count > 1 { exercised.insert(.c4_1) }
            // The body's job decides to start at some moment before the body logs its start,
            // so only a cancellation that returned before the job could exist is conclusive:
            // before the step made the task, and before its antecedent completed.
            if let body = observations.bodies[t]?.first, let cancelledBy, let made = observations.stepStart[index]?.seq {
                exercised.insert(.c4_3)
                judged.judge([index] + cancels)
                judged.judge(tokens: lineage)
                var earliestJob = made
                if let (antecedent, _) = spec.continuation { earliestJob = max(made, earliestCompletion(antecedent) ?? made) }
                if cancelledBy < earliestJob {
                    fail(
                        .c4_3, "the body of t\(t) started although \(what) was cancelled before it could start (\(describe(t)))",
                        expected: "body never starts; task cancelled", observed: "body started at event #\(body.start.seq)")
                }
            }
            for checkpoint in observations.checkpoints[t] ?? [] {
                exercised.insert(.c4_4)
                judged.judge(index)
                // Conclusive only for a cancellation logged before the checkpoint began to read
                // its token: its result is logged after the read, and a cancel() that returned
                // in between came too late for it (a false C4.4 in a crowded test process).
                if !checkpoint.threw, let cancelledBy, cancelledBy < checkpoint.began {
                    fail(
                        .c4_4, "checkpoint() in t\(t) did not throw after \(what) was cancelled (\(describe(t)))",
                        expected: "CancellationError", observed: "returned")
                }
                let mayBeDelayed = lineage.contains { delayed.contains($0) }
                if checkpoint.threw, !mayBeDelayed, requestedBy.map({ $0 > checkpoint.seq }) ?? true {
                    fail(
                        .c4_4, "checkpoint() in t\(t) threw although \(what) was not cancelled (\(describe(t)))",
                        expected: "returns", observed: "CancellationError")
                }
            }
        }
    }
}
