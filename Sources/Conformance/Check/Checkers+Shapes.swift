/// The checks of what steps read back, and of the newer shapes: a task's status and completion
/// where the model knows them (C1.1, C1.5), a prepared task's and a token's state (C9.3, C4.1),
/// `tryStart` on a source (C1.5), retries (C9.4), factories (C9.2), bursts on a serial executor
/// (C7.2, C7.3).
extension Checkers {
    mutating func runShapeChecks() {
        checkInspections()
        checkPreparedInspections()
        checkTokenInspections()
        checkSourceStarts()
        checkRetries()
        checkFactories()
        checkBursts()
        checkGroups()
        checkAbandonedOrigins()
    }

    /// The steps of `kind` on task `t` (by the ids they take), with their start and end.
    private func steps(on t: Int, where matches: (ProgramOperation) -> Bool) -> [(step: Int, start: UInt64?, end: UInt64?)] {
        program.steps.indices.filter { matches(program.steps[$0].operation) }.map { index in
            (index, observations.stepStart[index]?.seq, observations.stepEnd[index])
        }
    }

    /// The steps that may complete source task `t`: its setters (a hosted one from its step's
    /// start on) and its release.
    private func completing(_ t: Int) -> [(step: Int, start: UInt64?, end: UInt64?)] {
        steps(on: t) { $0.payload.setter?.source == t || $0.payload.releasedSource == t }
    }

    /// `tryStart()` steps on source task `t`, with what they returned.
    private func sourceStarts(_ t: Int) -> [(step: Int, start: UInt64?, end: UInt64?, ok: Bool?)] {
        steps(on: t) { $0.payload.startedSource == t }.map { step in
            (step.step, step.start, step.end, observations.sourceStarts[t]?.first { $0.step == step.step }?.ok)
        }
    }

    /// What an inspection read: `completion` set only with `status` completed and the task's
    /// outcome (C1.1); completed once its completion was seen before the read; never `running`
    /// for a task made from a source nothing started, `pending` while nothing could start or
    /// complete it, `running` once a `tryStart` won and nothing could complete it (C1.5); the main
    /// executor is not current on a driver (C9.7).
    private mutating func checkInspections() {
        for read in observations.inspections {
            guard let start = observations.stepStart[read.step]?.seq, let end = observations.stepEnd[read.step] else { continue }
            let t = read.task
            let here = "t\(t).status read at step \(read.step)"
            exercised.formUnion([.c1_5, .c1_1, .c9_7])
            judged.judge(read.step)
            judge(creatorOf: t)
            if read.mainIsCurrent {
                fail(
                    .c9_7, "backend.mainExecutor.isCurrent was true on a driver thread (step \(read.step))",
                    expected: "false outside the main executor's jobs", observed: "true")
            }
            if let completion = read.completion {
                if read.status != "completed" || !read.isCompleted {
                    fail(
                        .c1_5,
                        "\(here): completion was set, then status read \(read.status), isCompleted \(read.isCompleted) (\(describe(t)))",
                        expected: "completed once the completion is set", observed: read.status)
                }
                if let outcome = observations.outcome(t), completion != outcome {
                    fail(
                        .c1_1, "t\(t).completion read at step \(read.step) was not the task's outcome (\(describe(t)))",
                        expected: outcome.description, observed: completion.description)
                }
            } else if read.status == "completed", !read.isCompleted {
                fail(
                    .c1_5, "\(here): completed, then isCompleted false (\(describe(t)))", expected: "isCompleted once completed",
                    observed: "false")
            }
            if let done = observations.completedBy(t), done < start, read.completion == nil || read.status != "completed" {
                fail(
                    .c1_5,
                    "\(here), after the task completed, was \(read.status) with completion \(read.completion?.description ?? "nil") (\(describe(t)))",
                    expected: "completed, with its completion", observed: "\(read.status), \(read.completion?.description ?? "nil")")
            }
            if read.status == "running", oracle.creator[t]?.operation.madeFromSource == true, sourceStarts(t).isEmpty {
                fail(
                    .c1_5,
                    "\(here) was running, but nothing started the task: made from a source, it goes from pending straight to completed "
                        + "(\(describe(t)))", expected: "pending or completed", observed: "running")
            } else if let expected = knownStatus(of: t, start: start, end: end), read.status != expected {
                fail(.c1_5, "\(here) was \(read.status) (\(describe(t)))", expected: expected, observed: read.status)
            }
        }
    }

    /// The status the model knows task `t` has during a read from `start` to `end`, if it does.
    private func knownStatus(of t: Int, start: UInt64, end: UInt64) -> String? {
        guard let (_, operation) = oracle.creator[t] else { return nil }
        let startedFirst = sourceStarts(t).contains { ($0.end ?? .max) < start && $0.ok == true }
        let anyStart = sourceStarts(t).contains { ($0.start ?? .max) < end }
        let completers = completing(t).contains { ($0.start ?? .max) < end }
        if case .source = operation.dependence, !completers {
            // Nothing could complete it yet: pending, or running once a tryStart won (C1.5).
            if startedFirst { return "running" }
            if !anyStart { return "pending" }
        }
        if let prepared = preparedState(t, end: end), !prepared.started, !prepared.cancelled { return "pending" }
        return nil
    }

    /// For a prepared task: whether a start, or a cancellation of it or its token, began before
    /// `end` (the harness starts it only after the drivers).
    private func preparedState(_ t: Int, end: UInt64) -> (started: Bool, cancelled: Bool)? {
        guard let step = oracle.creator[t]?.step, case .startedBy = program.steps[step].operation.payload.bodySpec?.placement else {
            return nil
        }
        let started = steps(on: t) { $0.payload.startedPrepared?.task == t }
            .contains { ($0.start ?? .max) < end }
        let token = program.steps[step].operation.payload.bodySpec?.token
        let lineage = token.map { oracle.tokenLineage($0) } ?? []
        let cancels =
            cancelSteps(lineage) + oracle.preparedCancels(t)
        return (started, cancels.contains { (observations.stepStart[$0]?.seq ?? .max) < end || isTimer($0) })
    }

    private func isTimer(_ step: Int) -> Bool { program.steps[step].operation.payload.cancellation?.afterMicroseconds != nil }

    /// The `cancel()` and `cancel(after:)` steps on a token of `lineage`.
    private func cancelSteps(_ lineage: [Int]) -> [Int] {
        program.steps.indices.filter { program.steps[$0].operation.payload.cancellation.map { lineage.contains($0.token) } ?? false }
    }

    /// A prepared task's `isStarted` and token, read back (C9.3).
    private mutating func checkPreparedInspections() {
        for read in observations.preparedInspections {
            guard let start = observations.stepStart[read.step]?.seq, let end = observations.stepEnd[read.step],
                let state = preparedState(read.task, end: end)
            else { continue }
            exercised.insert(.c9_3)
            judged.judge(read.step)
            // A start step's (the harness's own start, logged under the prepare step, comes after the drivers).
            let startedBefore =
                observations.starts[read.task]?.contains { entry in
                    guard entry.ok, program.steps[entry.step].operation.payload.startedPrepared != nil else { return false }
                    return observations.stepEnd[entry.step].map { $0 < start } ?? false
                } ?? false
            if startedBefore, !read.isStarted {
                fail(
                    .c9_3, "t\(read.task).isStarted was false after a start returned true (step \(read.step))", expected: "true",
                    observed: "false")
            } else if !state.started, read.isStarted {
                fail(.c9_3, "t\(read.task).isStarted was true before any start (step \(read.step))", expected: "false", observed: "true")
            }
            if !state.cancelled, read.tokenCancelled {
                fail(
                    .c9_3, "t\(read.task).token was cancelled although nothing cancelled it (step \(read.step))", expected: "not cancelled",
                    observed: "cancelled")
            }
        }
    }

    /// A token's `isCancellationRequested` (the source's and the token's): true once a `cancel()`
    /// of its lineage returned, false while none began; `canBeCancelled` true, `.none`'s false (C4.1).
    private mutating func checkTokenInspections() {
        for read in observations.tokenInspections {
            guard let start = observations.stepStart[read.step]?.seq, let end = observations.stepEnd[read.step] else { continue }
            exercised.insert(.c4_1)
            judged.judge(read.step)
            let lineage = oracle.tokenLineage(read.token)
            judged.judge(tokens: lineage)
            let cancels = cancelSteps(lineage)
            let returned = cancels.contains { !isTimer($0) && (observations.stepEnd[$0].map { $0 < start } ?? false) }
            let none = !cancels.contains { isTimer($0) || (observations.stepStart[$0]?.seq ?? .max) < end }
            for (what, requested) in [("the source's", read.sourceRequested), ("its token's", read.tokenRequested)] {
                if returned, !requested {
                    fail(
                        .c4_1,
                        "k\(read.token): \(what) isCancellationRequested was false after a cancel() of its lineage returned (step \(read.step))",
                        expected: "true: once requested, cancellation stays requested", observed: "false")
                } else if none, requested {
                    fail(
                        .c4_1, "k\(read.token): \(what) isCancellationRequested was true before any cancel() (step \(read.step))",
                        expected: "false", observed: "true")
                }
            }
            if !read.canBeCancelled || !read.noneIsInert {
                fail(
                    .c4_1, "k\(read.token)'s token says it cannot be cancelled, or CancellationToken.none that it can (step \(read.step))",
                    expected: "canBeCancelled for a source's token, not for .none", observed: "the opposite")
            }
        }
    }

    /// `tryStart()` on a source: `true` when nothing started or completed it before, `false` once
    /// it completed or another start won (C1.5).
    private mutating func checkSourceStarts() {
        for (t, calls) in observations.sourceStarts.sorted(by: { $0.key < $1.key }) {
            let all = sourceStarts(t)
            let setters = completing(t)
            for call in calls {
                guard let start = observations.stepStart[call.step]?.seq, let end = observations.stepEnd[call.step] else { continue }
                exercised.insert(.c1_5)
                judged.judge(call.step)
                let completedBefore = observations.completedBy(t).map { $0 < start } ?? false
                let wonBefore = all.contains { $0.step != call.step && $0.ok == true && ($0.end ?? .max) < start }
                let nothingBefore =
                    !setters.contains { ($0.start ?? .max) < end } && !all.contains { $0.step != call.step && ($0.start ?? .max) < end }
                if call.ok, completedBefore || wonBefore {
                    fail(
                        .c1_5,
                        "t\(t).tryStart() at step \(call.step) returned true although the task was \(completedBefore ? "completed" : "started")",
                        expected: "false, changing nothing", observed: "true")
                } else if !call.ok, nothingBefore {
                    fail(
                        .c1_5, "t\(t).tryStart() at step \(call.step) returned false although nothing had started or completed the task",
                        expected: "true: pending to running", observed: "false")
                }
            }
        }
    }

    /// A retry's attempts: at most its `attempts`, exactly as many as the model plays with a token
    /// that is never cancelled, one after the other (C9.4).
    private mutating func checkRetries() {
        for (index, step) in program.steps.enumerated() {
            guard let retry = step.operation.retry, let attempts = observations.retryAttempts[retry.task] else { continue }
            exercised.insert(.c9_4)
            judged.judge(index)
            let starts = attempts.filter { !$0.end }
            let planned = retry.plan(step: index).attempts
            if starts.count > max(1, retry.attempts) || (oracle.tokenState(retry.token) == .never && starts.count != planned) {
                fail(
                    .c9_4, "retry t\(retry.task) made \(starts.count) attempts (step \(index): \(step.operation))",
                    expected: "\(planned) (at most \(max(1, retry.attempts)))", observed: "\(starts.count)")
            }
            // Start 1, end 1, start 2, end 2, ...: each attempt after the previous one ended.
            for (position, event) in attempts.sorted(by: { $0.seq < $1.seq }).enumerated()
            where event.attempt != position / 2 + 1 || event.end != (position % 2 == 1) {
                fail(
                    .c9_4, "retry t\(retry.task)'s attempts overlapped (step \(index): \(step.operation))",
                    expected: "each attempt after the previous one ended",
                    observed: "attempt \(event.attempt) \(event.end ? "ended" : "started") as event \(position + 1) of its attempts")
                break
            }
        }
    }

    /// A factory holds the backend, executor and token it was given (C9.2).
    private mutating func checkFactories() {
        for made in observations.factories {
            exercised.insert(.c9_2)
            judged.judge(made.step)
            if !made.backendOK || !made.executorOK || !made.tokenOK {
                fail(
                    .c9_2, "the TaskFactory of step \(made.step) does not hold what it was given",
                    expected: "its backend, executor and token",
                    observed: "backend \(made.backendOK), executor \(made.executorOK), token \(made.tokenOK)")
            }
        }
    }

    /// A burst's jobs each ran once, in the order they were handed to the serial executor (C7.2, C7.3).
    private mutating func checkBursts() {
        for (step, runs) in observations.burstRuns.sorted(by: { $0.key < $1.key }) {
            exercised.formUnion([.c7_2, .c7_3])
            judged.judge(step)
            let order = runs.sorted { $0.seq < $1.seq }.map(\.index)
            if Set(order).count != order.count {
                fail(
                    .c7_3, "a job of the burst at step \(step) ran more than once", expected: "each job once",
                    observed: "\(order.count) runs of \(Set(order).count) jobs")
            } else if order != order.sorted() {
                let first = zip(order, order.dropFirst()).first { $0 > $1 }
                fail(
                    .c7_2,
                    "the jobs of the burst at step \(step) (\(program.steps[step].operation)) ran out of the order they were handed over",
                    expected: "FIFO: job \(first?.1 ?? 0) before job \(first?.0 ?? 0)", observed: "job \(first?.0 ?? 0) first")
            }
        }
    }

    /// A source that records its origin, released pending, fails its task with an abandoned error
    /// naming the file and line of the call that made it in debug builds, nothing in release
    /// builds or when made through the `makeSource(of:)` requirement (C8.3).
    private mutating func checkAbandonedOrigins() {
        for (t, expected) in observations.sourceOrigins.sorted(by: { $0.key < $1.key }) {
            guard let named = observations.abandonedOrigins[t], let step = oracle.creator[t]?.step else { continue }
            exercised.insert(.c8_3)
            judged.judge(step)
            if named != expected {
                // A requirement call records nothing, so an origin there is the backend's own: most
                // likely a wrapper whose `makeSource(of:)` forwards with `base.makeSource(of:)`,
                // which picks TaskAPI's recording overload and names the forwarding line.
                let forwarded =
                    expected == nil && named != nil
                    ? " (the program called the makeSource(of:) requirement, which records no origin: the backend named one "
                        + "of its own, as a wrapper does that forwards with `base.makeSource(of: type)`, TaskAPI's recording "
                        + "overload; forward with `base.sourceWithoutOrigin(of: type)`)" : ""
                fail(
                    .c8_3, "t\(t)'s source, released pending, failed it abandoned naming \(named ?? "no origin") (\(describe(t)))",
                    expected: expected.map { "TaskError.abandoned(origin: \($0)), where the source was made" }
                        ?? "TaskError.abandoned(origin: nil)",
                    observed: "origin \(named ?? "nil")" + forwarded)
            }
        }
    }
}
