/// The checks of when things happen: user handlers against the cancels that must run them
/// (C4.2), timers against the event log's monotonic clock (C4.6, C5.4: never early, exactly;
/// never later than the slack), `wait(timeout:)` giving up on a task done before its deadline
/// (C6.2), a cancelled await outliving its cancellation (C4.7).
struct TimingChecks {
    let program: Program
    let observations: Observations
    let oracle: Oracle
    let slack: UInt64
    /// The events are stamped by a seated run's own clock (`RunClock`), and every one of them came
    /// from a seat: time moved only while no seat could go on.
    let runClock: Bool
    /// A seated run: where its stamps went from the run's clock to the system's. A moment due
    /// before it and seen after it is judged late from the release, not from its due time: the
    /// harness, not the backend, held it until then.
    let clockRelease: RunClock.Release?
    var exercised: RuleTally = []
    var judged: EntryPointTally
    var findings: [Finding] = []

    private var stepStartUp: [Int: UInt64] = [:]
    private var stepEndUp: [Int: UInt64] = [:]
    private var handlerRuns: [Int: [UInt64]] = [:]
    private var timerFires: [Int: [UInt64]] = [:]
    private var swiftCancelled: [Int: UInt64] = [:]
    private var awaitedUp: [Int: UInt64] = [:]
    private var waitedUp: [Int: UInt64] = [:]
    private var returnedUp: [Int: UInt64] = [:]
    /// When each retry attempt started and ended, by the retry's task (C9.4).
    private var retryAttemptsUp: [Int: [(attempt: Int, end: Bool, uptime: UInt64)]] = [:]
    private var earlyHarnessWaits: [(step: Int, limit: UInt64, elapsed: UInt64)] = []

    init(
        program: Program, observations: Observations, oracle: Oracle, events: [Event], slack: Duration, runClock: Bool = false,
        clockRelease: RunClock.Release? = nil
    ) {
        self.program = program
        self.observations = observations
        self.oracle = oracle
        self.slack = slack.nanoseconds
        self.runClock = runClock
        self.clockRelease = clockRelease
        judged = EntryPointTally(program: program)
        for event in events {
            switch event.kind {
            case .stepStart(let step): stepStartUp[step] = event.uptime
            case .stepEnd(let step): stepEndUp[step] = event.uptime
            case .handlerRan(let h): handlerRuns[h, default: []].append(event.seq)
            case .retryAttempt(let task, let attempt, let end): retryAttemptsUp[task, default: []].append((attempt, end, event.uptime))
            case .timerFired(let step): timerFires[step, default: []].append(event.uptime)
            case .swiftCancelled(let step): swiftCancelled[step] = event.uptime
            case .awaited(let step, _, _): awaitedUp[step] = event.uptime
            case .waited(let step, _, let result):
                returnedUp[step] = event.uptime
                if result == nil { waitedUp[step] = event.uptime }
            case .waitReturnedEarly(let step, let limit, let elapsed): earlyHarnessWaits.append((step, limit, elapsed))
            default: break
            }
        }
    }

    mutating func runAll() {
        checkHandlers()
        checkTimers()
        checkTimedTasks()
        checkRetryWaits()
        checkWaitTimeouts()
        if runClock { checkLateTimedWaits() }
        checkCancelledAwaits()
    }

    // MARK: - C4.2

    private mutating func checkHandlers() {
        var registrations: [(step: Int, handler: Int, token: Int)] = []
        var disposals: [Int: [Int]] = [:]
        for (index, step) in program.steps.enumerated() {
            if let register = step.operation.payload.registeredHandler { registrations.append((index, register.handler, register.token)) }
            if let handler = step.operation.payload.disposedHandler { disposals[handler, default: []].append(index) }
        }
        for registration in registrations {
            let h = registration.handler
            let runs = handlerRuns[h] ?? []
            let lineage = oracle.tokenLineage(registration.token)
            let cancels = cancelSteps(lineage)
            let timed = hasTimer(lineage)
            let firstCancelStart = cancels.compactMap { observations.stepStart[$0]?.seq }.min()
            let cancelledBy = cancels.compactMap { observations.stepEnd[$0] }.min()
            exercised.insert(.c4_2)
            judged.judge([registration.step] + cancels)
            judged.judge(tokens: lineage)
            if runs.count > 1 {
                fail(
                    .c4_2, "handler h\(h) (step \(registration.step)) ran \(runs.count) times", expected: "exactly once",
                    observed: "\(runs.count) runs")
            }
            guard let registered = observations.stepEnd[registration.step],
                let registering = observations.stepStart[registration.step]?.seq
            else { continue }
            // The disposal that counts: the first to start after `register` returned. One that
            // overlaps the registration may or may not find it: nothing is certain then.
            var disposal: (step: Int, start: UInt64, end: UInt64)?
            var overlapping = false
            for d in disposals[h] ?? [] {
                guard let start = observations.stepStart[d]?.seq, let end = observations.stepEnd[d] else { continue }
                if start > registered {
                    if disposal.map({ start < $0.start }) ?? true { disposal = (d, start, end) }
                } else if end > registering {
                    overlapping = true
                }
            }
            if overlapping { continue }
            if let (d, disposeStart, disposed) = disposal {
                if !timed, firstCancelStart.map({ $0 > disposed }) ?? true {
                    if let run = runs.first {
                        fail(
                            .c4_2,
                            "handler h\(h) ran although it was disposed (step \(d)) before its token k\(registration.token) was cancelled",
                            expected: "never runs", observed: "ran at event #\(run)")
                    }
                    continue
                }
                // Disposal racing cancellation: only a cancellation done before it must have run it.
                if cancelledBy.map({ $0 > disposeStart }) ?? true { continue }
            }
            guard let cancelledBy, let firstCancelStart else { continue }
            if runs.isEmpty {
                fail(
                    .c4_2, "handler h\(h) (step \(registration.step)) never ran although k\(registration.token) was cancelled",
                    expected: "runs once", observed: "never ran")
                continue
            }
            let run = runs[0]
            let first = cancels.min { (observations.stepStart[$0]?.seq ?? .max) < (observations.stepStart[$1]?.seq ?? .max) }
            let firstEnd = first.flatMap { observations.stepEnd[$0] } ?? cancelledBy
            // Another cancel() begun before the first one returned may be the one that ran the
            // handlers: then the first returned too early (C4.1), not the handler late (C4.2).
            let raced = cancels.contains { $0 != first && (observations.stepStart[$0]?.seq ?? .max) < firstEnd }
            if registered < firstCancelStart, run > firstEnd, raced {
                fail(
                    .c4_1,
                    "a cancel() of k\(registration.token)'s lineage returned before handler h\(h), run by another one racing it, ran",
                    expected: "every cancel() returns after the handlers ran", observed: "h\(h) ran at event #\(run), after #\(firstEnd)")
            } else if registered < firstCancelStart, run > firstEnd {
                fail(
                    .c4_2, "handler h\(h) ran after the cancel() that should run it returned",
                    expected: "inside the first cancel()", observed: "ran at event #\(run), after #\(firstEnd)")
            } else if registered < firstCancelStart, run > cancelledBy {
                fail(
                    .c4_1, "a cancel() of k\(registration.token)'s lineage returned before handler h\(h), run by the first one, ran",
                    expected: "every cancel() returns after the first one's handlers ran",
                    observed: "h\(h) ran at event #\(run), after #\(cancelledBy)")
            } else if registering > cancelledBy, run > registered || run < registering {
                fail(
                    .c4_2, "handler h\(h), registered on the already cancelled k\(registration.token), did not run inside register",
                    expected: "runs before register returns", observed: "ran at event #\(run)")
            }
        }
        checkHandlerOrder(registrations, disposals: disposals)
    }

    /// Handlers of one token, both registered, one after the other, before any cancellation,
    /// run in registration order (C4.2).
    private mutating func checkHandlerOrder(_ registrations: [(step: Int, handler: Int, token: Int)], disposals: [Int: [Int]]) {
        for (i, a) in registrations.enumerated() {
            for b in registrations[(i + 1)...] where a.token == b.token && disposals[a.handler] == nil && disposals[b.handler] == nil {
                let lineage = oracle.tokenLineage(a.token)
                guard !hasTimer(lineage),
                    let cancelStart = cancelSteps(lineage).compactMap({ observations.stepStart[$0]?.seq }).min(),
                    let aEnd = observations.stepEnd[a.step], let bStart = observations.stepStart[b.step]?.seq,
                    let bEnd = observations.stepEnd[b.step], aEnd < bStart, bEnd < cancelStart,
                    let runA = handlerRuns[a.handler]?.first, let runB = handlerRuns[b.handler]?.first
                else { continue }
                if runB < runA {
                    fail(
                        .c4_2,
                        "handler h\(b.handler) (registered at step \(b.step)) ran before h\(a.handler) (registered earlier, at step \(a.step))",
                        expected: "registration order", observed: "h\(b.handler) first")
                }
            }
        }
    }

    private func cancelSteps(_ lineage: [Int]) -> [Int] {
        program.steps.indices.filter {
            guard let cancel = program.steps[$0].operation.payload.cancellation else { return false }
            return cancel.afterMicroseconds == nil && lineage.contains(cancel.token)
        }
    }

    private func hasTimer(_ lineage: [Int]) -> Bool {
        program.steps.contains {
            guard let cancel = $0.operation.payload.cancellation else { return false }
            return cancel.afterMicroseconds != nil && lineage.contains(cancel.token)
        }
    }

    // MARK: - Timers: schedule (C5.4) and cancel(after:) (C4.6)

    private mutating func checkTimers() {
        for (index, step) in program.steps.enumerated() {
            guard let timer = step.operation.payload.probedTimer else { continue }
            let (rule, us) = (timer.rule, timer.microseconds)
            if let token = timer.token {
                // Only a token nothing else cancels tells when its own timer fired.
                let lineage = oracle.tokenLineage(token)
                let others = program.steps.indices.contains { other in
                    guard other != index, let another = program.steps[other].operation.payload.cancellation else { return false }
                    return lineage.contains(another.token)
                }
                if others { continue }
            }
            guard let start = stepStartUp[index], let end = stepEndUp[index] else { continue }
            exercised.insert(rule)
            judged.judge(index)
            let fires = timerFires[index] ?? []
            guard let fired = fires.first else {
                fail(
                    rule, "the timer of step \(index) (\(step.operation)) never fired", expected: "fires after \(us)us",
                    observed: "never fired")
                continue
            }
            if fires.count > 1 {
                // A cancel(after:) is seen through a handler of the harness: one run twice breaks C4.2.
                fail(
                    rule == .c4_6 ? .c4_2 : rule, "the timer of step \(index) (\(step.operation)) fired \(fires.count) times",
                    expected: "once", observed: "\(fires.count) times")
            }
            checkWindow(rule, at: fired, start: start, end: end, us: us, what: "the timer of step \(index) (\(step.operation)) fired")
        }
    }

    /// Never before `us` from the call (exact: the call began after `start`); never more than
    /// the slack after `us` from its return (or from a seated run's release, if that came later).
    private mutating func checkWindow(_ rule: Rule, at moment: UInt64, start: UInt64, end: UInt64, us: Int, what: String) {
        let due = UInt64(us) * 1_000
        if moment < start + due {
            fail(
                rule, "\(what) \((moment &- start) / 1_000)us after the call", expected: "no earlier than \(us)us",
                observed: "\(Int64(bitPattern: moment &- start) / 1_000)us")
        } else if case let bound = dueStamp(end, plus: due, seenAt: moment), moment > bound + slack {
            fail(
                rule, "\(what) \((moment - end) / 1_000_000) ms after the call returned",
                expected: "within \(us)us plus the slack of \(slack / 1_000_000) ms" + Self.fromRelease(bound, plain: end + due),
                observed: "\((moment - end) / 1_000_000) ms")
        }
    }

    // MARK: - delay and timeout (C5.4, C4.3)

    private mutating func checkTimedTasks() {
        for (index, step) in program.steps.enumerated() {
            guard let start = stepStartUp[index], let end = stepEndUp[index] else { continue }
            switch step.operation.payload.timedCompletion {
            case .elapses(let t, let us, let token)?:
                guard let seen = observations.completions[t]?.first else { continue }
                // Conclusive only for a cancel() done before the call, or one made after the call
                // returned (its handler registered) and done before the timer could be due.
                let cancels = token.map { cancelSteps(oracle.tokenLineage($0)) } ?? []
                let conclusive = cancels.contains { c in
                    guard let cStart = stepStartUp[c], let cEnd = stepEndUp[c] else { return false }
                    return cEnd < start || (cStart > end && cEnd < start + UInt64(us) * 1_000)
                }
                judged.judge(index)
                if conclusive {
                    exercised.insert(.c4_3)
                    if seen.outcome != .cancelled {
                        fail(
                            .c4_3, "\(step.operation) ignored its token, cancelled before the delay was up",
                            expected: "cancelled", observed: seen.outcome.description)
                    }
                } else if seen.outcome == .success(0), oracle.tokenState(token) == .never {
                    exercised.insert(.c5_4)
                    checkWindow(.c5_4, at: seen.uptime, start: start, end: end, us: us, what: "\(step.operation) succeeded")
                }
            case .racesAntecedent(let t, let antecedent, let us)?:
                guard let seen = observations.completions[t]?.first else { continue }
                exercised.insert(.c5_4)
                judged.judge(index)
                let (deadline, antecedentDone) = (UInt64(us) * 1_000, observations.completions[antecedent]?.first?.uptime)
                let plain = max(end, min(antecedentDone ?? end + deadline, end + deadline))
                // Each moment the completion may wait for, moved to a seated run's release if due before it.
                let due = dueStamp(end, plus: deadline, seenAt: seen.uptime)
                let done = antecedentDone.map { dueStamp($0, plus: 0, seenAt: seen.uptime) }
                let bound = max(dueStamp(end, plus: 0, seenAt: seen.uptime), min(done ?? due, due))
                if seen.uptime > bound + slack {
                    fail(
                        .c5_4, "\(step.operation) completed \((seen.uptime - end) / 1_000_000) ms after the call returned",
                        expected: "by the antecedent's completion or the deadline, plus the slack of \(slack / 1_000_000) ms"
                            + Self.fromRelease(bound, plain: plain),
                        observed: "\((seen.uptime - end) / 1_000_000) ms")
                }
            case nil:
                continue
            }
        }
    }

    /// A retry with a backoff starts attempt n + 1 no earlier than `backoff.delay(beforeRetry: n)`
    /// after attempt n ended (C9.4: the wait starts once the attempt's outcome is known), exactly:
    /// an exponential backoff whose growth is off by one starts one too early (issue 28).
    private mutating func checkRetryWaits() {
        for (index, step) in program.steps.enumerated() {
            guard let retry = step.operation.retry, retry.backoffMicroseconds != nil,
                let attempts = retryAttemptsUp[retry.task]
            else { continue }
            exercised.insert(.c9_4)
            judged.judge(index)
            for n in 1..<max(1, attempts.count) {
                guard let ended = attempts.first(where: { $0.attempt == n && $0.end })?.uptime,
                    let next = attempts.first(where: { $0.attempt == n + 1 && !$0.end })?.uptime
                else { continue }
                let wait = retry.backoff.delay(beforeRetry: n)
                if next < ended + wait.nanoseconds {
                    fail(
                        .c9_4,
                        "\(step.operation) started attempt \(n + 1) \((next - min(next, ended)) / 1_000) us after attempt \(n) ended",
                        expected: "no earlier than its backoff's delay before retry \(n), \(wait)",
                        observed: "\((next - min(next, ended)) / 1_000) us")
                }
            }
        }
    }

    // MARK: - wait(timeout:) (C6.2) and cancelled awaits (C4.7)

    private mutating func checkWaitTimeouts() {
        for wait in earlyHarnessWaits {
            fail(
                .c6_2,
                "step \(wait.step) (\(program.steps[wait.step].operation)): the harness's wait(timeout: \(wait.limit / 1_000_000) ms) "
                    + "on the task the step made returned nil \(wait.elapsed / 1_000)us after the call, the task not completed",
                expected: "nil only after \(wait.limit / 1_000_000) ms", observed: "nil after \(wait.elapsed / 1_000)us")
        }
        for wait in observations.waits where wait.result == nil {
            // Never nil before the timeout: the return is logged after it, the call began after the step's start.
            if let us = program.steps[wait.step].operation.payload.waitForm?.timeoutMicroseconds,
                let start = stepStartUp[wait.step],
                let returned = waitedUp[wait.step], returned < start + UInt64(us) * 1_000
            {
                fail(
                    .c6_2,
                    "step \(wait.step) (\(program.steps[wait.step].operation)) returned nil \((returned - start) / 1_000)us after the call",
                    expected: "nil only after \(us)us", observed: "\((returned - start) / 1_000)us")
            }
            guard let us = program.steps[wait.step].operation.payload.waitForm?.timeoutMicroseconds,
                let start = stepStartUp[wait.step], let done = observations.completions[wait.task]?.first?.uptime
            else { continue }
            exercised.insert(.c6_2)
            judged.judge(wait.step)
            // The observer ran after the completion; the deadline is after start + us.
            if done + 100_000 < start + UInt64(us) * 1_000 {
                fail(
                    .c6_2,
                    "step \(wait.step) (\(program.steps[wait.step].operation)) returned nil although t\(wait.task) completed "
                        + "\((start + UInt64(us) * 1_000 - done) / 1_000)us before its deadline",
                    expected: observations.outcome(wait.task)?.description ?? "the outcome", observed: "nil")
            }
        }
    }

    /// On a seated run's clock, a `wait(timeout:)` that returns the outcome returns with no time
    /// passing after the task completed (C6.2): the completion wakes the waiter, a seat that can
    /// then go on, and the clock moves only while no seat can. A wait whose return is stamped later
    /// than both its call and the completion slept through its wake-up until its deadline moved
    /// the clock (a lost wake-up in `wait(timeout:)`). Under real time a descheduled waiter may be
    /// that late, so only seated runs are judged.
    private mutating func checkLateTimedWaits() {
        for wait in observations.waits where wait.result != nil {
            guard program.steps[wait.step].operation.payload.waitForm?.timeoutMicroseconds != nil,
                let start = stepStartUp[wait.step], let returned = returnedUp[wait.step],
                let done = observations.completions[wait.task]?.first?.uptime
            else { continue }
            exercised.insert(.c6_2)
            judged.judge(wait.step)
            if returned > max(done, start) {
                fail(
                    .c6_2,
                    "step \(wait.step) (\(program.steps[wait.step].operation)) returned the outcome "
                        + "\((returned - max(done, start)) / 1_000)us of the run's clock after t\(wait.task) completed and the call began: "
                        + "it slept through its wake-up until its deadline",
                    expected: "returns as t\(wait.task) completes, before the run's clock moves",
                    observed: "returned \((returned - start) / 1_000)us after the call")
            }
        }
    }

    private mutating func checkCancelledAwaits() {
        for (step, cancelled) in swiftCancelled.sorted(by: { $0.key < $1.key }) {
            exercised.insert(.c4_7)
            judged.judge(step)
            let returned = awaitedUp[step]
            let bound = returned.map { dueStamp(cancelled, plus: 0, seenAt: $0) } ?? cancelled
            if returned.map({ $0 > bound + slack }) ?? true {
                let late = returned.map { "returned \(($0 - cancelled) / 1_000_000) ms after" } ?? "never returned"
                fail(
                    .c4_7,
                    "step \(step) (\(program.steps[step].operation)): the await \(late) its Swift task was cancelled"
                        + completedByHarness(step: step, cancelled: cancelled, returned: returned),
                    expected: "stops within the slack of \(slack / 1_000_000) ms" + Self.fromRelease(bound, plain: cancelled),
                    observed: late)
            }
        }
    }

    /// A late await that returned only once its task completed after the slack had run out (the
    /// harness completing what the program held, or the task's own work): it did not stop on its
    /// cancellation at all, which "returned 2001 ms after" alone reads as a timing flake.
    private func completedByHarness(step: Int, cancelled: UInt64, returned: UInt64?) -> String {
        guard let returned, let task = observations.awaits.first(where: { $0.step == step })?.task,
            let done = observations.completions[task]?.first?.uptime, done > cancelled + slack, returned >= done
        else { return "" }
        return ": it did not stop on the cancellation, it returned only once t\(task) completed, "
            + "\((done - cancelled) / 1_000_000) ms after the cancel (the harness completes the sources a program holds "
            + "when its steps are done, so an await that ignores its cancellation returns then)"
    }

    /// The stamp by which something due `due` nanoseconds after stamp `reference` can be seen at
    /// stamp `moment`: `reference + due`, or later across a seated run's release
    /// (`RunClock.Release.dueStamp`).
    private func dueStamp(_ reference: UInt64, plus due: UInt64, seenAt moment: UInt64) -> UInt64 {
        clockRelease?.dueStamp(reference, plus: due, seenAt: moment) ?? reference + due
    }

    /// What an expectation says of its bound when `dueStamp` moved it to a seated run's release.
    private static func fromRelease(_ bound: UInt64, plain: UInt64) -> String {
        bound > plain ? ", counted from the controlled run's release (the harness held the run until then)" : ""
    }

    private mutating func fail(_ rule: Rule, _ message: String, expected: String, observed: String) {
        findings.append(Finding(rule, message, expected: expected, observed: observed))
    }
}
