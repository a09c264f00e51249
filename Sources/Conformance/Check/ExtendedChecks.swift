/// Rules tested, each with how many checks ran: what the coverage table counts.
struct RuleTally: ExpressibleByArrayLiteral, Sequence {
    private(set) var counts: [Rule: Int] = [:]

    init(arrayLiteral rules: Rule...) { for rule in rules { insert(rule) } }

    var rules: Set<Rule> { Set(counts.keys) }

    mutating func insert(_ rule: Rule) { counts[rule, default: 0] += 1 }
    mutating func formUnion(_ rules: [Rule]) { for rule in rules { insert(rule) } }
    mutating func merge(_ other: RuleTally) { counts.merge(other.counts, uniquingKeysWith: +) }
    func contains(_ rule: Rule) -> Bool { counts[rule] != nil }
    func makeIterator() -> Set<Rule>.Iterator { rules.makeIterator() }
}

/// The checks of the extended operations and of time: user handlers (C4.2), timers against the
/// event log's monotonic clock (C4.6, C5.4: never early, exactly; never later than the slack),
/// `wait(timeout:)` giving up on a task done before its deadline (C6.2), a cancelled await
/// outliving its cancellation (C4.7), and the steps that check themselves (C5.x, C6.4).
struct ExtendedChecks {
    let program: Program
    let observations: Observations
    let oracle: Oracle
    let slack: UInt64
    var exercised: RuleTally = []
    var findings: [Finding] = []

    private var stepStartUp: [Int: UInt64] = [:]
    private var stepEndUp: [Int: UInt64] = [:]
    private var handlerRuns: [Int: [UInt64]] = [:]
    private var timerFires: [Int: [UInt64]] = [:]
    private var swiftCancelled: [Int: UInt64] = [:]
    private var awaitedUp: [Int: UInt64] = [:]
    private var waitedUp: [Int: UInt64] = [:]
    private var selfChecks: [(rule: Rule, finding: Finding?)] = []

    init(program: Program, observations: Observations, oracle: Oracle, events: [Event], slack: Duration) {
        self.program = program
        self.observations = observations
        self.oracle = oracle
        self.slack = slack.nanoseconds
        for event in events {
            switch event.kind {
            case .stepStart(let step): stepStartUp[step] = event.uptime
            case .stepEnd(let step): stepEndUp[step] = event.uptime
            case .handlerRan(let h): handlerRuns[h, default: []].append(event.seq)
            case .timerFired(let step): timerFires[step, default: []].append(event.uptime)
            case .swiftCancelled(let step): swiftCancelled[step] = event.uptime
            case .awaited(let step, _, _): awaitedUp[step] = event.uptime
            case .waited(let step, _, nil): waitedUp[step] = event.uptime
            case .selfCheck(_, let rule, let finding): selfChecks.append((rule, finding))
            default: break
            }
        }
    }

    mutating func runAll() {
        for check in selfChecks {
            exercised.insert(check.rule)
            if let finding = check.finding { findings.append(finding) }
        }
        checkHandlers()
        checkTimers()
        checkTimedTasks()
        checkWaitTimeouts()
        checkCancelledAwaits()
    }

    // MARK: - C4.2

    private mutating func checkHandlers() {
        var registrations: [(step: Int, handler: Int, token: Int)] = []
        var disposals: [Int: [Int]] = [:]
        for (index, step) in program.steps.enumerated() {
            if case .registerHandler(let h, let k) = step.operation { registrations.append((index, h, k)) }
            if case .disposeHandler(let h) = step.operation { disposals[h, default: []].append(index) }
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
            if runs.count > 1 {
                fail(.c4_2, "handler h\(h) (step \(registration.step)) ran \(runs.count) times", expected: "exactly once", observed: "\(runs.count) runs")
            }
            guard let registered = observations.stepEnd[registration.step],
                  let registering = observations.stepStart[registration.step]?.seq else { continue }
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
                        fail(.c4_2, "handler h\(h) ran although it was disposed (step \(d)) before its token k\(registration.token) was cancelled",
                             expected: "never runs", observed: "ran at event #\(run)")
                    }
                    continue
                }
                // Disposal racing cancellation: only a cancellation done before it must have run it.
                if cancelledBy.map({ $0 > disposeStart }) ?? true { continue }
            }
            guard let cancelledBy, let firstCancelStart else { continue }
            if runs.isEmpty {
                fail(.c4_2, "handler h\(h) (step \(registration.step)) never ran although k\(registration.token) was cancelled",
                     expected: "runs once", observed: "never ran")
                continue
            }
            let run = runs[0]
            let first = cancels.min { (observations.stepStart[$0]?.seq ?? .max) < (observations.stepStart[$1]?.seq ?? .max) }
            let firstEnd = first.flatMap { observations.stepEnd[$0] } ?? cancelledBy
            if registered < firstCancelStart, run > firstEnd {
                fail(.c4_2, "handler h\(h) ran after the cancel() that should run it returned",
                     expected: "inside the first cancel()", observed: "ran at event #\(run), after #\(firstEnd)")
            } else if registered < firstCancelStart, run > cancelledBy {
                fail(.c4_1, "a cancel() of k\(registration.token)'s lineage returned before handler h\(h), run by the first one, ran",
                     expected: "every cancel() returns after the first one's handlers ran", observed: "h\(h) ran at event #\(run), after #\(cancelledBy)")
            } else if registering > cancelledBy, run > registered || run < registering {
                fail(.c4_2, "handler h\(h), registered on the already cancelled k\(registration.token), did not run inside register",
                     expected: "runs before register returns", observed: "ran at event #\(run)")
            }
        }
        // Registration order: both registered, one after the other, before any cancellation.
        for (i, a) in registrations.enumerated() {
            for b in registrations[(i + 1)...] where a.token == b.token && disposals[a.handler] == nil && disposals[b.handler] == nil {
                let lineage = oracle.tokenLineage(a.token)
                guard !hasTimer(lineage),
                      let cancelStart = cancelSteps(lineage).compactMap({ observations.stepStart[$0]?.seq }).min(),
                      let aEnd = observations.stepEnd[a.step], let bStart = observations.stepStart[b.step]?.seq,
                      let bEnd = observations.stepEnd[b.step], aEnd < bStart, bEnd < cancelStart,
                      let runA = handlerRuns[a.handler]?.first, let runB = handlerRuns[b.handler]?.first else { continue }
                if runB < runA {
                    fail(.c4_2, "handler h\(b.handler) (registered at step \(b.step)) ran before h\(a.handler) (registered earlier, at step \(a.step))",
                         expected: "registration order", observed: "h\(b.handler) first")
                }
            }
        }
    }

    private func cancelSteps(_ lineage: [Int]) -> [Int] {
        program.steps.indices.filter { if case .cancel(let k) = program.steps[$0].operation { return lineage.contains(k) } else { return false } }
    }

    private func hasTimer(_ lineage: [Int]) -> Bool {
        program.steps.contains { if case .cancelAfter(let k, _) = $0.operation { return lineage.contains(k) } else { return false } }
    }

    // MARK: - Timers: schedule (C5.4) and cancel(after:) (C4.6)

    private mutating func checkTimers() {
        for (index, step) in program.steps.enumerated() {
            let rule: Rule, us: Int
            switch step.operation {
            case .schedule(let d): (rule, us) = (.c5_4, d)
            case .cancelAfter(let k, let d):
                // Only a token nothing else cancels tells when its own timer fired.
                let lineage = oracle.tokenLineage(k)
                let others = program.steps.indices.contains { other in
                    guard other != index else { return false }
                    switch program.steps[other].operation {
                    case .cancel(let j), .cancelAfter(let j, _): return lineage.contains(j)
                    default: return false
                    }
                }
                if others { continue }
                (rule, us) = (.c4_6, d)
            default: continue
            }
            guard let start = stepStartUp[index], let end = stepEndUp[index] else { continue }
            exercised.insert(rule)
            let fires = timerFires[index] ?? []
            guard let fired = fires.first else {
                fail(rule, "the timer of step \(index) (\(step.operation)) never fired", expected: "fires after \(us)us", observed: "never fired")
                continue
            }
            if fires.count > 1 {
                // A cancel(after:) is seen through a handler of the harness: one run twice breaks C4.2.
                fail(rule == .c4_6 ? .c4_2 : rule, "the timer of step \(index) (\(step.operation)) fired \(fires.count) times", expected: "once", observed: "\(fires.count) times")
            }
            checkWindow(rule, at: fired, start: start, end: end, us: us, what: "the timer of step \(index) (\(step.operation)) fired")
        }
    }

    /// Never before `us` from the call (exact: the call began after `start`); never more than
    /// the slack after `us` from its return.
    private mutating func checkWindow(_ rule: Rule, at moment: UInt64, start: UInt64, end: UInt64, us: Int, what: String) {
        let due = UInt64(us) * 1_000
        if moment < start + due {
            fail(rule, "\(what) \((moment &- start) / 1_000)us after the call", expected: "no earlier than \(us)us",
                 observed: "\(Int64(bitPattern: moment &- start) / 1_000)us")
        } else if moment > end + due + slack {
            fail(rule, "\(what) \((moment - end) / 1_000_000) ms after the call returned", expected: "within \(us)us plus the slack of \(slack / 1_000_000) ms",
                 observed: "\((moment - end) / 1_000_000) ms")
        }
    }

    // MARK: - delay and timeout (C5.4, C4.3)

    private mutating func checkTimedTasks() {
        for (index, step) in program.steps.enumerated() {
            guard let start = stepStartUp[index], let end = stepEndUp[index] else { continue }
            switch step.operation {
            case .delay(let t, let us, let token):
                guard let seen = observations.completions[t]?.first else { continue }
                // Conclusive only for a cancel() done before the call, or one made after the call
                // returned (its handler registered) and done before the timer could be due.
                let cancels = token.map { cancelSteps(oracle.tokenLineage($0)) } ?? []
                let conclusive = cancels.contains { c in
                    guard let cStart = stepStartUp[c], let cEnd = stepEndUp[c] else { return false }
                    return cEnd < start || (cStart > end && cEnd < start + UInt64(us) * 1_000)
                }
                if conclusive {
                    exercised.insert(.c4_3)
                    if seen.outcome != .cancelled {
                        fail(.c4_3, "\(step.operation) ignored its token, cancelled before the delay was up",
                             expected: "cancelled", observed: seen.outcome.description)
                    }
                } else if seen.outcome == .success(0), oracle.tokenState(token) == .never {
                    exercised.insert(.c5_4)
                    checkWindow(.c5_4, at: seen.uptime, start: start, end: end, us: us, what: "\(step.operation) succeeded")
                }
            case .timeout(let t, let antecedent, let us):
                guard let seen = observations.completions[t]?.first else { continue }
                exercised.insert(.c5_4)
                let due = end + UInt64(us) * 1_000
                let bound = max(end, min(observations.completions[antecedent]?.first?.uptime ?? due, due)) + slack
                if seen.uptime > bound {
                    fail(.c5_4, "\(step.operation) completed \((seen.uptime - end) / 1_000_000) ms after the call returned",
                         expected: "by the antecedent's completion or the deadline, plus the slack of \(slack / 1_000_000) ms",
                         observed: "\((seen.uptime - end) / 1_000_000) ms")
                }
            default:
                continue
            }
        }
    }

    // MARK: - wait(timeout:) (C6.2) and cancelled awaits (C4.7)

    private mutating func checkWaitTimeouts() {
        for wait in observations.waits where wait.result == nil {
            // Never nil before the timeout: the return is logged after it, the call began after the step's start.
            if case .waitTimeout(_, let us) = program.steps[wait.step].operation, let start = stepStartUp[wait.step],
               let returned = waitedUp[wait.step], returned < start + UInt64(us) * 1_000 {
                fail(.c6_2, "step \(wait.step) (\(program.steps[wait.step].operation)) returned nil \((returned - start) / 1_000)us after the call",
                     expected: "nil only after \(us)us", observed: "\((returned - start) / 1_000)us")
            }
            guard case .waitTimeout(_, let us) = program.steps[wait.step].operation,
                  let start = stepStartUp[wait.step], let done = observations.completions[wait.task]?.first?.uptime else { continue }
            exercised.insert(.c6_2)
            // The observer ran after the completion; the deadline is after start + us.
            if done + 100_000 < start + UInt64(us) * 1_000 {
                fail(.c6_2, "step \(wait.step) (\(program.steps[wait.step].operation)) returned nil although t\(wait.task) completed "
                     + "\((start + UInt64(us) * 1_000 - done) / 1_000)us before its deadline",
                     expected: observations.outcome(wait.task)?.description ?? "the outcome", observed: "nil")
            }
        }
    }

    private mutating func checkCancelledAwaits() {
        for (step, cancelled) in swiftCancelled.sorted(by: { $0.key < $1.key }) {
            exercised.insert(.c4_7)
            let returned = awaitedUp[step]
            if returned.map({ $0 > cancelled + slack }) ?? true {
                let late = returned.map { "returned \(($0 - cancelled) / 1_000_000) ms after" } ?? "never returned"
                fail(.c4_7, "step \(step) (\(program.steps[step].operation)): the await \(late) its Swift task was cancelled",
                     expected: "stops within the slack of \(slack / 1_000_000) ms", observed: late)
            }
        }
    }

    private mutating func fail(_ rule: Rule, _ message: String, expected: String, observed: String) {
        findings.append(Finding(rule, message, expected: expected, observed: observed))
    }
}

extension ProgramExecution {
    /// After a hang: a `delay` (whose token nothing cancels) or `timeout` task still pending long after its
    /// deadline means its timer never fired, which names the faulty operation better than the
    /// watchdog's generic culprit (C5.4).
    func overdueTimer() -> Finding? {
        let tokens = Oracle(program: program, observations: Observations([]))
        let completed = log.completedTasks
        for (index, step) in program.steps.enumerated() {
            let t: Int, us: Int
            switch step.operation {
            case .delay(let task, let d, let token) where tokens.tokenState(token) == .never: (t, us) = (task, d)
            case .timeout(let task, _, let d): (t, us) = (task, d)
            default: continue
            }
            // Not seen completing, and not completed (a lost observer is another bug); a dropped
            // delay whose timer never fires may already be freed.
            let made = tasks.withLock { $0.contains { $0.id == t } }
            guard made, t < completed.count, !completed[t], isCompleted(task: t) != true else { continue }
            return Finding(.c5_4, "\(step.operation) (step \(index)) never completed: its timer never fired",
                           expected: "completed \(us)us after the call", observed: "pending when the watchdog gave up")
        }
        return nil
    }
}
