import Foundation
import TaskAPI

/// The result of running and checking one program.
struct ProgramResult {
    var findings: [Finding]
    var exercised: Set<Rule>
    /// How many checks of each rule ran.
    var checks: [Rule: Int] = [:]
    /// A hang left threads blocked inside the backend: stop testing it.
    var abandoned: Bool
    /// The event log, one event a line, when the program failed.
    var events: String = ""
    /// The mode the program ran in.
    var mode: ScheduleMode = .stress
    /// The event log without threads and times (`Event.replayDescription`): in controlled mode,
    /// the same for the same seed.
    var eventLines: [String] = []
    /// Controlled mode: what came from outside the harness (empty: reproducible).
    var notReproducible: [String] = []
}

/// Runs one program in two phases and checks it.
///
/// Phase one: the drivers run every step; then the harness waits for every task the model says
/// can complete without the held sources, and snapshots which tasks completed. Phase two: the
/// harness completes the held sources and waits until everything completed and every body and
/// await returned. Then it drops every reference and checks that bodies and tasks are freed.
struct Harness {
    /// The backend of each program run: a new one from a factory (`Conformance.check(makeBackend:)`),
    /// or the same instance every time (`Conformance.check(_:)`).
    let makeBackend: @Sendable () -> any TaskBackend
    let executors: any ExecutorProvider
    var hangLimit: Duration
    let leakLimit: Duration
    /// How late a timer or a cancelled await may be (ExtendedChecks).
    var timingSlack: Duration = TimingSlack.current

    func run(_ program: Program, mode: ScheduleMode = .stress) -> ProgramResult {
        let backend = makeBackend()
        if case .controlled(let strategy) = mode.mode(forProgram: 0) {
            return runControlled(program, strategy: strategy, backend: backend)
        }
        let execution = ProgramExecution(
            program: program, backend: backend, executors: executors.makeExecutors(for: program, backend: backend))
        let watchdog = Watchdog(limit: hangLimit)
        let group = DispatchGroup()
        for driver in 0..<program.drivers {
            group.enter()
            let thread = Thread {
                execution.runDriver(driver)
                group.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        let driversDone = group.wait(timeout: .now() + .milliseconds(Int(hangLimit.components.seconds * 1000) + 1)) == .success
        if !driversDone {
            let stuck = execution.currentStep.withLock { $0.filter { $0 >= 0 } }
            let finding = Watchdog.hang(phase: "the drivers' steps", execution: execution, stuckSteps: stuck,
                                        heldCompleted: false, limit: hangLimit)
            return ProgramResult(findings: [finding], exercised: [], abandoned: true)
        }

        // Phase one: re-evaluate the model after every bit of progress until every task it
        // expects to complete without the held sources has (or the watchdog deadline passes).
        var findings: [Finding] = []
        let phaseOneDeadline = watchdog.deadline
        // Cancelled awaits get the timing slack, not the watchdog's limit: one that outlives it
        // is a C4.7 finding of the timing checks, not a stall.
        let awaitsDeadline = Date().addingTimeInterval(timingSlack.seconds)
        while true {
            let seen = execution.log.progress
            let phaseOne = Oracle(program: program, observations: Observations(execution.log.events)).evaluate(.phaseOne)
            let expected = (0..<program.taskCount).filter { phaseOne[$0].allowed != nil }
            if execution.log.phaseOneDone(tasks: expected, ignoringAwaits: Date() >= awaitsDeadline) { break }
            let deadline = Date() < awaitsDeadline ? min(phaseOneDeadline, awaitsDeadline) : phaseOneDeadline
            if !execution.log.waitForProgress(after: seen, deadline: deadline), Date() >= phaseOneDeadline { break }
        }
        let snapshot = execution.log.completedTasks

        // Phase two.
        execution.completeHeldSources()
        if !execution.log.waitForQuiescence(deadline: watchdog.deadline) {
            var finding = Watchdog.hang(phase: "completion of every task, body and await", execution: execution,
                                        stuckSteps: [], heldCompleted: true, limit: hangLimit)
            var observed = [finding.observed, execution.log.runningSummary].filter { !$0.isEmpty }
            // No task explains it, yet an await never resumed: its continuation was lost.
            let awaits = execution.log.awaitsNotResumed
            if !finding.observed.hasPrefix("likely culprit: "), awaits > 0 {
                observed.insert("likely culprit: \(awaits) await(s) never resumed although no stuck task explains "
                                + "it: a lost continuation (C2.1, C6.5)", at: 0)
            }
            finding = Finding(finding.rule, finding.message, expected: finding.expected,
                              observed: observed.joined(separator: "; "))
            findings.append(finding)
            return ProgramResult(findings: findings, exercised: [], abandoned: true)
        }

        return check(execution, snapshot: snapshot, findings: findings)
    }

    /// The checkers and the leak checks, once a run is quiescent.
    func check(_ execution: ProgramExecution, snapshot: [Bool], findings: [Finding]) -> ProgramResult {
        let log = execution.log.events
        var checkers = Checkers(program: execution.program, observations: Observations(log), snapshot: snapshot)
        checkers.runAll()
        execution.extras.waitForTimers(slack: timingSlack)
        let timedLog = execution.log.events
        var extended = ExtendedChecks(program: execution.program, observations: Observations(timedLog), oracle: checkers.oracle,
                                      events: timedLog, slack: timingSlack)
        extended.runAll()
        // The timing and handler findings first: they name the faulty operation (a timer, a
        // handler), where the outcome checks see its consequences.
        var findings = findings + extended.findings + checkers.findings
        var exercised = checkers.exercised
        exercised.merge(extended.exercised)
        findings += checkLeaks(execution, exercised: &exercised)
        execution.extras.clear()
        let events = findings.isEmpty ? "" : timedLog.map(\.description).joined(separator: "\n")
        return ProgramResult(findings: findings, exercised: exercised.rules, checks: exercised.counts, abandoned: false, events: events,
                             eventLines: log.map(\.replayDescription))
    }

    /// Once everything completed and the harness dropped its references, no body closure and no
    /// task may stay alive (C8.1, C8.2). Polls until the deadline: executors release a job's
    /// closure just after it returns.
    private func checkLeaks(_ execution: ProgramExecution, exercised: inout RuleTally) -> [Finding] {
        var findings: [Finding] = []
        // C8.1 first, while the tasks are still referenced: a completed task must not keep them.
        let probes = execution.probes.withLock { $0 }
        if !probes.isEmpty { exercised.insert(.c8_1) }
        let liveProbes = pollUntilReleased(probes.map(\.reference)).map { probes[$0].what }
        if !liveProbes.isEmpty {
            findings.append(Finding(.c8_1, "closures still alive after their tasks completed and ran",
                                    expected: "released", observed: liveProbes.prefix(10).joined(separator: ", ")))
        }
        execution.slots.clear()
        let tasks = execution.tasks.withLock { $0 }
        if !tasks.isEmpty { exercised.insert(.c8_2) }
        let liveTasks = pollUntilReleased(tasks.map(\.reference)).map { "t\(tasks[$0].id)" }
        if !liveTasks.isEmpty {
            findings.append(Finding(.c8_2, "tasks still alive after every reference was dropped",
                                    expected: "freed", observed: liveTasks.prefix(10).joined(separator: ", ")))
        }
        return findings
    }

    /// Waits until every reference is nil or the leak deadline passes; the indices still alive.
    private func pollUntilReleased(_ references: [WeakReference]) -> [Int] {
        let deadline = Watchdog(limit: leakLimit).deadline
        var spins = 0
        while references.contains(where: { $0.object != nil }), Date() < deadline {
            spins += 1
            if spins < 100 { sched_yield() } else { usleep(200) }
        }
        return references.indices.filter { references[$0].object != nil }
    }
}
