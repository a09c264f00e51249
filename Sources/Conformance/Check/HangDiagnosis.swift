/// Turns a hang (`Hang`, the facts a run gathered when it gave up) into a finding a user can act
/// on: it names the likely culprit first, then the drivers truly stuck inside the backend, the
/// drivers merely waiting for another driver's steps, and the program's tasks still pending (by
/// their real status, never the harness's own observers).
struct HangDiagnosis {
    private let program: Program
    private let hang: Hang
    private let ended: Set<Int>
    private let creator: [Int: Int]
    private let tokenCreator: [Int: Int]
    private let setters: [Int: [Int]]
    /// Set by `explain`: a task completed whose harness continuation never ran.
    private(set) var foundLostContinuation = false
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

    /// The finding for `hang` of `program`: what `explain` names, unless a timer that never
    /// fired names the faulty operation better.
    static func finding(for hang: Hang, of program: Program) -> Finding {
        var diagnosis = HangDiagnosis(program: program, hang: hang)
        var (rule, observed) = diagnosis.explain()
        // A timer that never fired is the faulty operation, whatever waits on its task; unless a
        // continuation was lost: a backend may build its timers on continuations, so a lost one
        // stops a timer too and is the more basic fault (then the timer is only mentioned).
        if let overdue = diagnosis.overdueTimer() {
            if diagnosis.foundLostContinuation {
                observed += "; also: " + overdue.message
            } else {
                (rule, observed) = (overdue.rule, overdue.message + "; " + observed)
            }
        }
        let phase: String
        switch hang.kind {
        case .timedOut(let name): phase = name
        case .blockedJob: phase = "a job handed to the backend's executor"
        case .blockedSeat(let seat): phase = "a seat (\(seat))"
        case .stuck: phase = ""
        }
        return Finding(
            rule, "watchdog: \(phase.isEmpty ? "the run" : phase) did not finish within \(hang.limit)",
            expected: "every task completes and every waiter wakes", observed: observed)
    }

    init(program: Program, hang: Hang) {
        self.program = program
        self.hang = hang
        var ended: Set<Int> = []
        var running: [Int: (task: Int, thread: Int)] = [:]
        var open: [Int: Int] = [:]
        for event in hang.events {
            switch event.kind {
            case .stepEnd(let step): ended.insert(step)
            case .bodyStart(let t, false, _, _, _, _):
                open[t, default: 0] += 1
                running[t] = (t, event.thread)
            case .bodyEnd(let t, false): open[t, default: 0] -= 1
            default: break
            }
        }
        self.ended = ended
        runningBodies = running.values.filter { open[$0.task, default: 0] > 0 }.sorted { $0.task < $1.task }
        var released: Set<Int> = []
        var creator: [Int: Int] = [:]
        var tokenCreator: [Int: Int] = [:]
        var setters: [Int: [Int]] = [:]
        for (index, step) in program.steps.enumerated() {
            let payload = step.operation.payload
            if let source = payload.releasedSource, ended.contains(index) { released.insert(source) }
            if let t = payload.createdTask { creator[t] = index }
            if let k = payload.createdToken { tokenCreator[k] = index }
            if let setter = payload.setter { setters[setter.source, default: []].append(index) }
        }
        self.released = released
        self.creator = creator
        self.tokenCreator = tokenCreator
        self.setters = setters
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
            let open = (setters[t] ?? []).filter { !ended.contains($0) }
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
    private mutating func lostCalls() -> (lost: [(Rule, String)], queued: [(Rule, String)]) {
        var hosted: Set<Int> = []
        var burstRuns: [Int: Int] = [:]
        for event in hang.events {
            if case .hostStart(let step) = event.kind { hosted.insert(step) }
            if case .burstJobRan(let step, _) = event.kind { burstRuns[step, default: 0] += 1 }
        }
        var lost: [(Rule, String)] = []
        var queued: [(Rule, String)] = []
        for (index, step) in program.steps.enumerated() where ended.contains(index) {
            if let host = step.operation.payload.host, !hosted.contains(index), host.antecedent.map(isDone) ?? true {
                let what =
                    "the \(host.antecedent == nil ? "job" : "continuation") of step \(index) (\(step.operation)) never ran "
                    + (host.antecedent.map { "although t\($0) completed" } ?? "although it was handed to \(host.executor)")
                if host.antecedent != nil, host.executor == .inline {
                    foundLostContinuation = true
                    lost.append((.c2_1, what + ": a lost continuation"))
                } else {
                    queued.append((.c2_1, what))
                }
            }
            if let count = step.operation.payload.burstJobs, burstRuns[index, default: 0] < count {
                queued.append(
                    (.c7_3, "\(count - burstRuns[index, default: 0]) of the \(count) jobs of step \(index) (\(step.operation)) never ran"))
            }
        }
        return (lost, queued)
    }

    /// What a diagnosis found, in the order it is told.
    private struct Findings {
        var culprits: [(Rule, String)] = []
        var unexplained: [(Rule, String)] = []
        var stuck: [String] = []
        var waiting: [String] = []
    }

    /// The rule and the text of the finding.
    mutating func explain() -> (Rule, String) {
        var found = Findings()
        // A task that completed although the harness's observer never ran: a lost continuation.
        for t in 0..<program.taskCount where hang.actual[t] == true && !hang.observed[t] {
            foundLostContinuation = true
            found.culprits.append(
                (
                    .c2_1,
                    "t\(t) completed, but the continuation the harness registered on it (whenComplete on the "
                        + "inline executor) never ran: a lost continuation"
                ))
        }
        let (lost, queued) = lostCalls()
        found.culprits += lost
        for step in hang.stuckSteps { explainDriver(in: step, into: &found) }
        // A driver stuck inside a call says only where, not why: a concrete finding of another
        // driver (a waiter not woken although its task completed) comes first, since it can be
        // what holds that call (an inline body waiting on the same task).
        found.culprits += found.unexplained
        // No driver explains it (phase two, or a run without waits): the most upstream stuck tasks.
        if found.culprits.isEmpty {
            var seen: Set<Int> = []
            for t in 0..<program.taskCount where !isDone(t) {
                for case .stuck(let u) in blockers(of: t, seen: &seen) {
                    found.culprits.append(
                        (stuckRule(u), "t\(u) never completed although every step and task it depends on did: \(describe(u))"))
                }
            }
        }
        // Jobs handed to an executor and not run may only be queued behind the hang: last.
        if found.culprits.isEmpty { found.culprits += queued }
        // A body that never returns explains everything downstream of it: it comes first.
        found.culprits.insert(
            contentsOf: runningBodies.map { body in
                (
                    Rule.c2_1,
                    "the body of t\(body.task) started on thread\(body.thread) and never returned: it blocks outside "
                        + "wait() (a sleep, lock or semaphore the backend cannot see), or its executor is stuck: \(describe(body.task))"
                )
            }, at: 0)
        return (found.culprits.first?.0 ?? .c2_1, text(of: found))
    }

    /// What the driver in step `step` waits for: another driver's step, or the backend (stuck).
    private func explainDriver(in step: Int, into found: inout Findings) {
        let operation = program.steps[step].operation
        let driver = "driver d\(program.steps[step].driver) in step \(step) (\(operation))"
        let inputs = operation.uses.compactMap { use -> Int? in
            if case .token(let k) = use { return tokenCreator[k] }
            return use.task.flatMap { creator[$0] }
        }
        let missing = inputs.filter { !ended.contains($0) && $0 != step }
        if !missing.isEmpty {
            found.waiting.append("\(driver) waits for step \(missing.map(String.init).joined(separator: ", ")) to make its input")
            return
        }
        switch operation.payload.blocking {
        case .untilEarlierUses:
            found.waiting.append("\(driver) waits for the earlier steps that use the task")
        case .untilTimeout:
            found.stuck.append(driver)
            found.culprits.append((.c6_2, "\(driver): wait(timeout:) never returned"))
        case .never:
            found.stuck.append(driver)
            found.unexplained.append((.c2_1, "\(driver) never returned from the backend (a deadlock or a lost wake-up inside the call?)"))
        case .untilCompleted(let t):
            explainWait(on: t, driver: driver, into: &found)
        case .untilGroupIdle(let g):
            // What the group waits for: its joined tasks, as a wait() on each would.
            let joined = program.steps.compactMap { step -> Int? in
                guard let join = step.operation.payload.joinedGroup, join.group == g else { return nil }
                return join.task
            }
            guard let pending = joined.first(where: { hang.actual[$0] != true }) else {
                found.stuck.append(driver)
                found.culprits.append((.c9_11, "\(driver): every task joined to the group completed, but wait() never returned"))
                return
            }
            explainWait(on: pending, driver: driver, into: &found)
        }
    }

    /// A blocking `wait()` on `t` that did not return: a lost wake-up, or what `t` waits for.
    private func explainWait(on t: Int, driver: String, into found: inout Findings) {
        if hang.actual[t] == true {
            found.stuck.append(driver)
            found.culprits.append((.c6_3, "\(driver): t\(t) completed but wait() never woke"))
            return
        }
        var seen: Set<Int> = []
        let blockers = self.blockers(of: t, seen: &seen)
        let stuckTasks = blockers.compactMap { if case .stuck(let u) = $0 { return u } else { return nil } }.sorted()
        let steps = blockers.compactMap { if case .step(let s) = $0 { return s } else { return nil } }.sorted()
        if stuckTasks.isEmpty, !steps.isEmpty {
            found.waiting.append(
                "\(driver) waits for step "
                    + steps.map { "\($0) (driver d\(program.steps[$0].driver))" }
                    .joined(separator: ", "))
            return
        }
        found.stuck.append(driver)
        for u in stuckTasks {
            found.culprits.append(
                (
                    stuckRule(u),
                    "t\(u) never completed although every step and task it depends on did: \(describe(u))"
                        + (u == t ? "" : "; t\(t) waits on it")
                ))
        }
    }

    private func text(of found: Findings) -> String {
        var lines: [String] = []
        if let first = found.culprits.first {
            lines.append("likely culprit: \(first.1)")
            if found.culprits.count > 1 {
                lines.append("also: " + found.culprits.dropFirst().prefix(4).map(\.1).joined(separator: "; "))
            }
        }
        if !found.stuck.isEmpty { lines.append("stuck: " + found.stuck.joined(separator: "; ")) }
        if !found.waiting.isEmpty {
            lines.append("waiting on other drivers (not stuck themselves): " + found.waiting.joined(separator: "; "))
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

    /// A `delay` (whose token nothing cancels), `timeout` or backing-off `retry` task still
    /// pending long after its deadline means its timer never fired, which names the faulty operation better than the
    /// generic culprit (C5.4).
    func overdueTimer() -> Finding? {
        let tokens = Oracle(program: program, observations: Observations([]))
        for (index, step) in program.steps.enumerated() {
            // A delay whose token is cancelled may complete without its timer.
            guard let timer = step.operation.payload.awaitedTimer, tokens.tokenState(timer.token) == .never else { continue }
            let (t, us) = (timer.task, timer.microseconds)
            // Not seen completing, and not completed (a lost observer is another bug); a dropped
            // delay whose timer never fires may already be freed.
            guard hang.made.contains(t), t < hang.observed.count, !hang.observed[t], hang.actual[t] != true else { continue }
            return Finding(
                .c5_4, "\(step.operation) (step \(index)) never completed: its timer never fired",
                expected: "its timer fires \(us)us after it is set, and the task completes", observed: "pending when the watchdog gave up")
        }
        return nil
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
