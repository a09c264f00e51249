/// Turns a hang (`Hang`, the facts a run gathered when it gave up) into a finding a user can act
/// on: its findings ranked (`HangFindingKind`: what the run observed directly before what the
/// diagnosis inferred), the first one as the likely culprit and the failure's rule, the others
/// as the finding's `alsoFound`; then the drivers truly stuck inside the backend, the drivers
/// merely waiting for another driver's steps, and the program's tasks still pending (by their
/// real status, never the harness's own observers).
struct HangDiagnosis {
    private let program: Program
    private let hang: Hang
    private let ended: Set<Int>
    private let started: Set<Int>
    /// Steps whose timer the harness saw fire (`timerFired`).
    private let fired: Set<Int>
    private let creator: [Int: Int]
    private let tokenCreator: [Int: Int]
    /// The steps that complete each source's task: its setters and its release (which must fail
    /// it abandoned, C8.3).
    private let completers: [Int: [Int]]
    /// Sources whose release step ended: their tasks must have completed (C8.3).
    private let released: Set<Int>
    /// Bodies that started and have not returned: (task, thread of the start).
    private let runningBodies: [(task: Int, thread: Int)]

    /// What keeps a task from completing.
    enum Blocker: Hashable {
        /// A driver step that has not finished (it would make or complete a task).
        case step(Int)
        /// A held source: the harness completes it after the drivers.
        case held(Int)
        /// A task that should have completed by now: everything it depends on is done.
        case stuck(Int)
    }

    /// The finding for `hang` of `program`: the first of its ranked findings, with the others
    /// as its `alsoFound`.
    static func finding(for hang: Hang, of program: Program) -> Finding {
        let diagnosis = HangDiagnosis(program: program, hang: hang)
        let (found, context) = diagnosis.explain()
        let phase: String
        switch hang.kind {
        case .timedOut(let name): phase = name
        case .blockedJob: phase = "a job handed to the backend's executor"
        case .blockedSeat(let seat): phase = "a seat blocked outside ScheduleKit's primitives (\(seat))"
        case .stuck: phase = ""
        }
        var finding = Finding(
            found.first?.rule ?? .c2_1, "watchdog: \(phase.isEmpty ? "the run" : phase) \(givenUp(hang))",
            expected: "every task completes and every waiter wakes", observed: diagnosis.text(of: found, context))
        finding.alsoFound = found.dropFirst().map { $0.finding(after: hang.givenUpAfter) }
        return finding
    }

    /// Which way the watchdog gave the phase up: with no progress for the hang limit, or still
    /// making progress at its cap (a phase's `PhaseWatch`), or at the limit in all.
    private static func givenUp(_ hang: Hang) -> String {
        switch hang.givenUp {
        case .noProgress(let ran)?:
            let idle = hang.driversUsedNoCPU ? "; no driver thread used CPU time meanwhile" : ""
            return "made no progress for \(hang.limit) (the phase ran \(seconds(ran))\(idle))"
        case .livelock(let ran)?:
            return "kept making progress for \(seconds(ran)) without finishing (a livelock?)"
        case nil:
            return "did not finish within \(hang.limit)"
        }
    }

    /// A phase's running time as the headline gives it: "12.3 s".
    private static func seconds(_ duration: Duration) -> String {
        "\((duration.seconds * 10).rounded() / 10) s"
    }

    init(program: Program, hang: Hang) {
        self.program = program
        self.hang = hang
        var ended: Set<Int> = []
        var started: Set<Int> = []
        var fired: Set<Int> = []
        var running: [Int: (task: Int, thread: Int)] = [:]
        var open: [Int: Int] = [:]
        for event in hang.events {
            switch event.kind {
            case .stepStart(let step): started.insert(step)
            case .stepEnd(let step): ended.insert(step)
            case .timerFired(let step): fired.insert(step)
            case .bodyStart(let t, false, _, _, _, _):
                open[t, default: 0] += 1
                running[t] = (t, event.thread)
            case .bodyEnd(let t, false): open[t, default: 0] -= 1
            default: break
            }
        }
        self.ended = ended
        self.started = started
        self.fired = fired
        runningBodies = running.values.filter { open[$0.task, default: 0] > 0 }.sorted { $0.task < $1.task }
        var released: Set<Int> = []
        var creator: [Int: Int] = [:]
        var tokenCreator: [Int: Int] = [:]
        var completers: [Int: [Int]] = [:]
        for (index, step) in program.steps.enumerated() {
            let payload = step.operation.payload
            if let source = payload.releasedSource {
                completers[source, default: []].append(index)
                if ended.contains(index) { released.insert(source) }
            }
            if let t = payload.createdTask { creator[t] = index }
            if let k = payload.createdToken { tokenCreator[k] = index }
            if let setter = payload.setter { completers[setter.source, default: []].append(index) }
        }
        self.released = released
        self.creator = creator
        self.tokenCreator = tokenCreator
        self.completers = completers
    }

    private func isDone(_ t: Int) -> Bool { hang.actual[t] == true || hang.observed[t] }

    /// What `t` waits for, followed back to driver steps, held sources or stuck tasks.
    func blockers(of t: Int, seen: inout Set<Int>) -> Set<Blocker> {
        guard t < program.taskCount, !isDone(t), seen.insert(t).inserted else { return [] }
        guard let made = creator[t], let operation = program.steps[made].operation.payload as? any TaskOperation else { return [] }
        if !ended.contains(made) { return [.step(made)] }
        switch operation.dependence {
        case .source(let held):
            if released.contains(t) { return [.stuck(t)] }
            if held, !hang.heldCompleted { return [.held(t)] }
            let open = (completers[t] ?? []).filter { !ended.contains($0) }
            return open.isEmpty ? [.stuck(t)] : Set(open.map(Blocker.step))
        case .start:
            // A prepared task no step starts waits for the harness's start, like a held source.
            let startStep = program.steps.indices.first { program.steps[$0].operation.payload.startedPrepared?.task == t }
            if let startStep, !ended.contains(startStep) { return [.step(startStep)] }
            return startStep == nil && !hang.heldCompleted ? [.held(t)] : [.stuck(t)]
        case .tasks(let inputs):
            let upstream = inputs.reduce(into: Set<Blocker>()) { $0.formUnion(blockers(of: $1, seen: &seen)) }
            return upstream.isEmpty ? [.stuck(t)] : upstream
        case .nothing:
            return [.stuck(t)]
        }
    }

    /// Hosted calls whose inline continuation never ran although its task completed (C2.1:
    /// lost), and, apart, those on other executors and burst jobs that never ran (C2.1, C7.3:
    /// lost, or only queued behind whatever hangs): what the run waited for, not a task.
    private func lostCalls() -> (lost: [HangFinding], queued: [HangFinding]) {
        var hosted: Set<Int> = []
        var burstRuns: [Int: Int] = [:]
        for event in hang.events {
            if case .hostStart(let step) = event.kind { hosted.insert(step) }
            if case .burstJobRan(let step, _) = event.kind { burstRuns[step, default: 0] += 1 }
        }
        var lost: [HangFinding] = []
        var queued: [HangFinding] = []
        for (index, step) in program.steps.enumerated() where ended.contains(index) {
            let made = Set(step.operation.payload.createdTask.map { [$0] } ?? [])
            if let host = step.operation.payload.host, !hosted.contains(index), host.antecedent.map(isDone) ?? true {
                let what =
                    "the \(host.antecedent == nil ? "job" : "continuation") of step \(index) (\(step.operation)) never ran "
                    + (host.antecedent.map { "although t\($0) completed" } ?? "although it was handed to \(host.executor)")
                if host.antecedent != nil, host.executor == .inline {
                    lost.append(HangFinding(kind: .lostContinuation, rule: .c2_1, text: what + ": a lost continuation", tasks: made))
                } else {
                    queued.append(HangFinding(kind: .jobNeverRan, rule: .c2_1, text: what, tasks: made))
                }
            }
            if let count = step.operation.payload.burstJobs, burstRuns[index, default: 0] < count {
                queued.append(
                    HangFinding(
                        kind: .jobNeverRan, rule: .c7_3,
                        text: "\(count - burstRuns[index, default: 0]) of the \(count) jobs of step \(index) (\(step.operation)) never ran")
                )
            }
        }
        return (lost, queued)
    }

    /// What the drivers show besides findings: those stuck inside the backend, and those only
    /// waiting for another driver's steps.
    struct DriverContext {
        var stuck: [String] = []
        var waiting: [String] = []
    }

    /// Every finding, ranked (`HangFinding.ranked`), and what the drivers show.
    func explain() -> ([HangFinding], DriverContext) {
        var found: [HangFinding] = []
        var context = DriverContext()
        // A task that completed although the harness's observer never ran: a lost continuation.
        for t in 0..<program.taskCount where hang.actual[t] == true && !hang.observed[t] {
            found.append(
                HangFinding(
                    kind: .lostContinuation, rule: .c2_1,
                    text: "t\(t) completed, but the continuation the harness registered on it (whenComplete on the "
                        + "inline executor) never ran: a lost continuation", tasks: [t]))
        }
        let (lost, queued) = lostCalls()
        found += lost
        for step in hang.stuckSteps { explainDriver(in: step, into: &found, context: &context) }
        // No driver explains it (phase two, or a run without waits): the most upstream stuck tasks.
        if found.isEmpty {
            var seen: Set<Int> = []
            for t in 0..<program.taskCount where !isDone(t) {
                for case .stuck(let u) in blockers(of: t, seen: &seen) {
                    found.append(
                        HangFinding(
                            kind: .taskNeverCompleted, rule: stuckRule(u),
                            text: "t\(u) never completed although every step and task it depends on did: \(describe(u))", tasks: [u]))
                }
            }
        }
        // Jobs handed to an executor and not run may only be queued behind the hang: told only
        // when nothing else is.
        let direct = overdueTimers() + releasedSourcesPending() + bodiesNeverReturned()
        if found.isEmpty, direct.isEmpty { found += queued }
        return (HangFinding.ranked(found + direct), context)
    }

    /// Bodies that started and never returned (C2.1).
    private func bodiesNeverReturned() -> [HangFinding] {
        runningBodies.map { body in
            HangFinding(
                kind: .bodyNeverReturned, rule: .c2_1,
                text: "the body of t\(body.task) started on thread\(body.thread) and never returned: it blocks outside "
                    + "wait() (a sleep, lock or semaphore the backend cannot see), or its executor is stuck: \(describe(body.task))",
                tasks: [body.task])
        }
    }

    /// Tasks of released sources still pending, no setter of theirs left inside its call (C8.3).
    private func releasedSourcesPending() -> [HangFinding] {
        released.sorted().filter { t in
            hang.actual[t] == false && !(completers[t] ?? []).contains { started.contains($0) && !ended.contains($0) }
        }.map { t in
            HangFinding(
                kind: .releasedSourcePending, rule: .c8_3,
                text: "t\(t) is still pending although its source was released: \(describe(t))", tasks: [t])
        }
    }

    /// What the driver in step `step` waits for: another driver's step, or the backend (stuck).
    private func explainDriver(in step: Int, into found: inout [HangFinding], context: inout DriverContext) {
        let operation = program.steps[step].operation
        let driver = "driver d\(program.steps[step].driver) in step \(step) (\(operation))"
        let inputs = operation.uses.compactMap { use -> Int? in
            if case .token(let k) = use { return tokenCreator[k] }
            return use.task.flatMap { creator[$0] }
        }
        let missing = inputs.filter { !ended.contains($0) && $0 != step }
        if !missing.isEmpty {
            context.waiting.append("\(driver) waits for step \(missing.map(String.init).joined(separator: ", ")) to make its input")
            return
        }
        switch operation.payload.blocking {
        case .untilEarlierUses:
            context.waiting.append("\(driver) waits for the earlier steps that use the task")
        case .untilTimeout:
            context.stuck.append(driver)
            found.append(HangFinding(kind: .timedWaitNeverReturned, rule: .c6_2, text: "\(driver): wait(timeout:) never returned"))
        case .never:
            context.stuck.append(driver)
            found.append(
                HangFinding(
                    kind: .driverNeverReturned, rule: .c2_1,
                    text: "\(driver) never returned from the backend (a deadlock or a lost wake-up inside the call?)"))
        case .untilCompleted(let t):
            explainWait(on: t, driver: driver, into: &found, context: &context)
        case .untilGroupIdle(let g):
            // What the group waits for: its joined tasks, as a wait() on each would.
            let joined = program.steps.compactMap { step -> Int? in
                guard let join = step.operation.payload.joinedGroup, join.group == g else { return nil }
                return join.task
            }
            guard let pending = joined.first(where: { hang.actual[$0] != true }) else {
                context.stuck.append(driver)
                found.append(
                    HangFinding(
                        kind: .waiterNotWoken, rule: .c9_11,
                        text: "\(driver): every task joined to the group completed, but wait() never returned"))
                return
            }
            explainWait(on: pending, driver: driver, into: &found, context: &context)
        }
    }

    /// A blocking `wait()` on `t` that did not return: a lost wake-up, or what `t` waits for.
    private func explainWait(on t: Int, driver: String, into found: inout [HangFinding], context: inout DriverContext) {
        if hang.actual[t] == true {
            context.stuck.append(driver)
            found.append(HangFinding(kind: .waiterNotWoken, rule: .c6_3, text: "\(driver): t\(t) completed but wait() never woke"))
            return
        }
        var seen: Set<Int> = []
        let blockers = self.blockers(of: t, seen: &seen)
        let stuckTasks = blockers.compactMap { if case .stuck(let u) = $0 { return u } else { return nil } }.sorted()
        let steps = blockers.compactMap { if case .step(let s) = $0 { return s } else { return nil } }.sorted()
        if stuckTasks.isEmpty, !steps.isEmpty {
            context.waiting.append(
                "\(driver) waits for step "
                    + steps.map { "\($0) (driver d\(program.steps[$0].driver))" }
                    .joined(separator: ", "))
            return
        }
        context.stuck.append(driver)
        for u in stuckTasks {
            found.append(
                HangFinding(
                    kind: .taskNeverCompleted, rule: stuckRule(u),
                    text: "t\(u) never completed although every step and task it depends on did: \(describe(u))"
                        + (u == t ? "" : "; t\(t) waits on it"), tasks: [u]))
        }
    }

    /// The observed text: the likely culprit (the first finding), the others with their rules,
    /// the stuck and waiting drivers, the seats and the pending tasks.
    func text(of found: [HangFinding], _ context: DriverContext) -> String {
        var lines: [String] = []
        if let first = found.first {
            lines.append("likely culprit: \(first.text)")
            let others = found.dropFirst()
            if !others.isEmpty {
                let shown = others.prefix(4).map { "\($0.rule): \($0.text)" }
                let more = others.dropFirst(4)
                lines.append(
                    "also: " + shown.joined(separator: "; ")
                        + (more.isEmpty
                            ? ""
                            : "; and \(more.count) more (\(Set(more.map(\.rule)).sorted().map(\.rawValue).joined(separator: ", ")))"))
            }
        }
        if !context.stuck.isEmpty { lines.append("stuck: " + context.stuck.joined(separator: "; ")) }
        if !context.waiting.isEmpty {
            lines.append("waiting on other drivers (not stuck themselves): " + context.waiting.joined(separator: "; "))
        }
        if !hang.seats.isEmpty { lines.append("seats: " + hang.seats.joined(separator: "; ")) }
        let pending = (0..<program.taskCount).filter { hang.actual[$0] != nil && !isDone($0) }
        if !pending.isEmpty {
            lines.append(
                "pending tasks: " + pending.prefix(20).map { "t\($0)" }.joined(separator: ", ")
                    + (pending.count > 20 ? ", ..." : ""))
        }
        return lines.joined(separator: "; ")
    }

    /// Tasks a timer completes (a `delay`, a `timeout`, a backing-off `retry`) still pending long
    /// after their deadline, whose token nothing may have cancelled: their timer never fired (C5.4).
    func overdueTimers() -> [HangFinding] {
        let tokens = Oracle(program: program, observations: Observations([]))
        var found: [HangFinding] = []
        for (index, step) in program.steps.enumerated() {
            // A delay whose token may have been cancelled may complete without its timer.
            guard let timer = step.operation.payload.awaitedTimer, !mayHaveCancelled(timer.token, tokens: tokens) else { continue }
            let t = timer.task
            // Not seen completing, and not completed (a lost observer is another bug); a dropped
            // delay whose timer never fires may already be freed.
            guard hang.made.contains(t), t < hang.observed.count, !hang.observed[t], hang.actual[t] != true else { continue }
            found.append(
                HangFinding(
                    kind: .overdueTimer, rule: .c5_4,
                    text: "\(step.operation) (step \(index)) never completed: its timer, due \(timer.microseconds)us after it "
                        + "was set, never fired" + (timer.token == nil ? "" : ", and nothing cancelled its token"),
                    tasks: [t]))
        }
        return found
    }

    /// Whether something may have cancelled token `k` in this run: a `cancel()` of its lineage
    /// that started, or a `cancel(after:)` of it whose handler the harness saw run. A
    /// `cancel(after:)` seen not to fire cancelled nothing (its own timer never fired either).
    private func mayHaveCancelled(_ k: Int?, tokens: Oracle) -> Bool {
        guard let k else { return false }
        let lineage = Set(tokens.tokenLineage(k))
        return program.steps.indices.contains { index in
            guard let cancel = program.steps[index].operation.payload.cancellation, lineage.contains(cancel.token) else { return false }
            return cancel.afterMicroseconds == nil ? started.contains(index) : fired.contains(index)
        }
    }

    /// The rule a stuck task breaks: a released source's task must have failed `abandoned` (C8.3).
    private func stuckRule(_ t: Int) -> Rule {
        released.contains(t) ? .c8_3 : .c2_1
    }

    private func describe(_ t: Int) -> String {
        let made = creator[t].map { "step \($0): \(program.steps[$0].operation)" } ?? "t\(t)"
        return released.contains(t) ? made + " (its source was released pending: it must have failed abandoned, C8.3)" : made
    }
}
