import Foundation

/// Turns a hang into a finding a user can act on: it names the likely culprit first, then the
/// drivers truly stuck inside the backend, the drivers merely waiting for another driver's
/// steps, and the program's tasks still pending (by their real status, never the harness's own
/// observers).
struct Watchdog {
    /// How long one phase of one program may take before it counts as a hang.
    let limit: Duration

    var deadline: Date {
        let (seconds, attoseconds) = limit.components
        return Date().addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// A finding for a hang in `phase` of `execution`: `stuckSteps` are the steps drivers are
    /// in; `heldCompleted` says whether the harness has completed the held sources yet.
    static func hang(
        phase: String, execution: ProgramExecution, stuckSteps: [Int], heldCompleted: Bool, limit: Duration
    ) -> Finding {
        var diagnosis = HangDiagnosis(execution: execution, heldCompleted: heldCompleted)
        var (rule, observed) = diagnosis.explain(stuckSteps: stuckSteps)
        // A timer that never fired is the faulty operation, whatever waits on its task; unless a
        // continuation was lost: a backend may build its timers on continuations, so a lost one
        // stops a timer too and is the more basic fault (then the timer is only mentioned).
        if let overdue = execution.overdueTimer() {
            if diagnosis.foundLostContinuation {
                observed += "; also: " + overdue.message
            } else {
                (rule, observed) = (overdue.rule, overdue.message + "; " + observed)
            }
        }
        return Finding(rule, "watchdog: \(phase.isEmpty ? "the run" : phase) did not finish within \(limit)",
                       expected: "every task completes and every waiter wakes", observed: observed)
    }
}

/// Why a run hangs, from the program, the event log and each task's real status.
struct HangDiagnosis {
    private let program: Program
    /// Whether the harness's observer saw each task complete.
    private let observed: [Bool]
    /// Each task's real status (`nil`: freed, unknown).
    private let actual: [Bool?]
    private let ended: Set<Int>
    private let creator: [Int: Int]
    private let tokenCreator: [Int: Int]
    private let setters: [Int: [Int]]
    /// Set by `explain`: a task completed whose harness continuation never ran.
    private(set) var foundLostContinuation = false
    private let heldCompleted: Bool
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

    init(execution: ProgramExecution, heldCompleted: Bool) {
        program = execution.program
        observed = execution.log.completedTasks
        actual = (0..<program.taskCount).map { execution.isCompleted(task: $0) }
        var ended: Set<Int> = []
        for event in execution.log.events { if case .stepEnd(let step) = event.kind { ended.insert(step) } }
        self.ended = ended
        var running: [Int: (task: Int, thread: Int)] = [:]
        var open: [Int: Int] = [:]
        for event in execution.log.events {
            switch event.kind {
            case .bodyStart(let t, false, _, _, _):
                open[t, default: 0] += 1
                running[t] = (t, event.thread)
            case .bodyEnd(let t, false):
                open[t, default: 0] -= 1
            default:
                break
            }
        }
        runningBodies = running.values.filter { open[$0.task, default: 0] > 0 }.sorted { $0.task < $1.task }
        var released: Set<Int> = []
        for (index, step) in execution.program.steps.enumerated() {
            if case .releaseSource(let s) = step.operation, ended.contains(index) { released.insert(s) }
        }
        self.released = released
        var creator: [Int: Int] = [:]
        var tokenCreator: [Int: Int] = [:]
        var setters: [Int: [Int]] = [:]
        for (index, step) in program.steps.enumerated() {
            if let t = step.operation.createdTask { creator[t] = index }
            if case .makeToken(let k, _) = step.operation { tokenCreator[k] = index }
            if case .complete(let s, _, _) = step.operation { setters[s, default: []].append(index) }
        }
        self.creator = creator
        self.tokenCreator = tokenCreator
        self.setters = setters
        self.heldCompleted = heldCompleted
    }

    private func isDone(_ t: Int) -> Bool { actual[t] == true || observed[t] }

    /// What `t` waits for, followed back to driver steps, held sources or stuck tasks.
    func blockers(of t: Int, seen: inout Set<Int>) -> Set<Blocker> {
        guard t < program.taskCount, !isDone(t), seen.insert(t).inserted else { return [] }
        guard let made = creator[t] else { return [] }
        if !ended.contains(made) { return [.step(made)] }
        var inputs: [Int] = []
        switch program.steps[made].operation {
        case .makeSource(_, let held):
            if released.contains(t) { return [.stuck(t)] }
            if held != nil, !heldCompleted { return [.held(t)] }
            let open = (setters[t] ?? []).filter { !ended.contains($0) }
            return open.isEmpty ? [.stuck(t)] : Set(open.map(Blocker.step))
        case .prepare:
            // A prepared task no step starts waits for the harness's start, like a held source.
            let startStep = program.steps.indices.first { if case .start(t, _) = program.steps[$0].operation { return true } else { return false } }
            if let startStep, !ended.contains(startStep) { return [.step(startStep)] }
            return startStep == nil && !heldCompleted ? [.held(t)] : [.stuck(t)]
        case .chain(_, let kind, let antecedent, _, _, _):
            inputs = [antecedent]
            if case .flatMapExisting(let inner) = kind { inputs.append(inner) }
        case .combine(_, _, let list):
            inputs = list
        default:
            return [.stuck(t)]
        }
        let upstream = inputs.reduce(into: Set<Blocker>()) { $0.formUnion(blockers(of: $1, seen: &seen)) }
        return upstream.isEmpty ? [.stuck(t)] : upstream
    }

    /// The rule and the text of the finding.
    mutating func explain(stuckSteps: [Int]) -> (Rule, String) {
        var culprits: [(Rule, String)] = []
        var unexplained: [(Rule, String)] = []
        var stuck: [String] = []
        var waiting: [String] = []
        // A task that completed although the harness's observer never ran: a lost continuation.
        for t in 0..<program.taskCount where actual[t] == true && !observed[t] {
            foundLostContinuation = true
            culprits.append((.c2_1, "t\(t) completed, but the continuation the harness registered on it (whenComplete on the "
                             + "inline executor) never ran: a lost continuation"))
        }
        for step in stuckSteps {
            let operation = program.steps[step].operation
            let driver = "driver d\(program.steps[step].driver) in step \(step) (\(operation))"
            let inputs = operation.usedTasks.compactMap { creator[$0] } + operation.usedTokens.compactMap { tokenCreator[$0] }
            let missing = inputs.filter { !ended.contains($0) && $0 != step }
            if !missing.isEmpty {
                waiting.append("\(driver) waits for step \(missing.map(String.init).joined(separator: ", ")) to make its input")
                continue
            }
            if case .drop = operation {
                waiting.append("\(driver) waits for the earlier steps that use the task")
                continue
            }
            if case .waitTimeout = operation {
                stuck.append(driver)
                culprits.append((.c6_2, "\(driver): wait(timeout:) never returned"))
                continue
            }
            guard case .wait(let t) = operation else {
                stuck.append(driver)
                unexplained.append((.c2_1, "\(driver) never returned from the backend (a deadlock or a lost wake-up inside the call?)"))
                continue
            }
            if actual[t] == true {
                stuck.append(driver)
                culprits.append((.c6_3, "\(driver): t\(t) completed but wait() never woke"))
                continue
            }
            var seen: Set<Int> = []
            let blockers = self.blockers(of: t, seen: &seen)
            let stuckTasks = blockers.compactMap { if case .stuck(let u) = $0 { return u } else { return nil } }.sorted()
            let steps = blockers.compactMap { if case .step(let s) = $0 { return s } else { return nil } }.sorted()
            if stuckTasks.isEmpty, !steps.isEmpty {
                waiting.append("\(driver) waits for step " + steps.map { "\($0) (driver d\(program.steps[$0].driver))" }
                    .joined(separator: ", "))
                continue
            }
            stuck.append(driver)
            for u in stuckTasks {
                culprits.append((stuckRule(u), "t\(u) never completed although every step and task it depends on did: \(describe(u))"
                                 + (u == t ? "" : "; t\(t) waits on it")))
            }
        }
        // A driver stuck inside a call says only where, not why: a concrete finding of another
        // driver (a waiter not woken although its task completed) comes first, since it can be
        // what holds that call (an inline body waiting on the same task).
        culprits += unexplained
        // No driver explains it (phase two, or a run without waits): the most upstream stuck tasks.
        if culprits.isEmpty {
            var seen: Set<Int> = []
            for t in 0..<program.taskCount where !isDone(t) {
                for case .stuck(let u) in blockers(of: t, seen: &seen) {
                    culprits.append((stuckRule(u), "t\(u) never completed although every step and task it depends on did: \(describe(u))"))
                }
            }
        }
        // A body that never returns explains everything downstream of it: it comes first.
        culprits.insert(contentsOf: runningBodies.map { body in
            (Rule.c2_1, "the body of t\(body.task) started on thread\(body.thread) and never returned: it blocks outside "
             + "wait() (a sleep, lock or semaphore the backend cannot see), or its executor is stuck: \(describe(body.task))")
        }, at: 0)
        var lines: [String] = []
        if let first = culprits.first {
            lines.append("likely culprit: \(first.1)")
            if culprits.count > 1 {
                lines.append("also: " + culprits.dropFirst().prefix(4).map(\.1).joined(separator: "; "))
            }
        }
        if !stuck.isEmpty { lines.append("stuck: " + stuck.joined(separator: "; ")) }
        if !waiting.isEmpty { lines.append("waiting on other drivers (not stuck themselves): " + waiting.joined(separator: "; ")) }
        let pending = (0..<program.taskCount).filter { actual[$0] != nil && !isDone($0) }
        if !pending.isEmpty {
            lines.append("pending tasks: " + pending.prefix(20).map { "t\($0)" }.joined(separator: ", ")
                         + (pending.count > 20 ? ", ..." : ""))
        }
        return (culprits.first?.0 ?? .c2_1, lines.joined(separator: "; "))
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
