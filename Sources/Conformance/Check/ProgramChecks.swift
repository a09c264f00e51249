/// The result of running and checking one program.
struct ProgramResult {
    var findings: [Finding]
    var exercised: Set<Rule>
    /// How many checks of each rule ran.
    var checks: [Rule: Int] = [:]
    /// The entry points of TaskAPI the program's steps called (those that started).
    var entryPoints: Set<EntryPoint> = []
    /// How many checks judged a step that called each entry point.
    var entryPointChecks: [EntryPoint: Int] = [:]
    /// A hang left threads blocked inside the backend: stop testing it.
    var abandoned: Bool
    /// The event log, one event a line, when the program failed.
    var events: String = ""
    /// The mode the program ran in.
    var mode: ScheduleMode = .stress
    /// The event log without threads and times (`Event.replayDescription`): in controlled mode,
    /// the same for the same seed.
    var eventLines: [String] { replayEvents.map(\.replayDescription) }
    /// The events `eventLines` describes, made into text only when asked (most runs never are).
    var replayEvents: [Event] = []
    /// Controlled mode: what came from outside the harness (empty: reproducible).
    var notReproducible: [String] = []
    /// A seated run released because a seat blocked outside ScheduleKit's primitives, which then
    /// finished natively: that seat and its last point (`RunRecord.blockedOutsidePrimitives`).
    var blockedOutsidePrimitives: String?
    /// A seated run released at a seated phase's cap, which then finished natively: which phase,
    /// and the cap (`RunRecord.cappedSeatedPhase`).
    var cappedSeatedPhase: String?
    /// The run was controlled on the seated engine (an instrumented backend).
    var seated = false
    /// Exhaustive mode: the program's exploration (this is its failing schedule's result, or its last's).
    var exploration: ExplorationTally?
}

/// Judges a run (`RunRecord`): a hang by its diagnosis, a finished run by the checkers, the
/// timing and probe checks, and the leaks it recorded. The checks run after the run, over what
/// it recorded; none runs during it.
enum ProgramChecks {
    static func check(_ record: RunRecord, slack: Duration) -> ProgramResult {
        var result: ProgramResult
        switch record.ending {
        case .hung(let hang): result = hangResult(hang, record: record)
        case .quiescent: result = quiescentResult(record, slack: slack)
        }
        result.mode = record.mode
        result.notReproducible = record.notReproducible
        result.blockedOutsidePrimitives = record.blockedOutsidePrimitives
        result.cappedSeatedPhase = record.cappedSeatedPhase
        result.entryPoints = calledEntryPoints(record)
        result.seated = record.seated
        return result
    }

    /// The findings of a run that did not finish. What the interposition saw the executors do
    /// wrong comes first: it names the faulty executor.
    private static func hangResult(_ hang: Hang, record: RunRecord) -> ProgramResult {
        var finding = HangDiagnosis.finding(for: hang, of: record.program)
        var result = ProgramResult(findings: [], exercised: [], abandoned: hang.abandons)
        switch hang.kind {
        case .timedOut:
            // No task explains it, yet an await never resumed: its continuation was lost.
            var observed = [finding.observed, hang.running].filter { !$0.isEmpty }
            if !finding.observed.hasPrefix("likely culprit: "), hang.awaitsNotResumed > 0 {
                observed.insert(
                    "likely culprit: \(hang.awaitsNotResumed) await(s) never resumed although no stuck task "
                        + "explains it: a lost continuation (C2.1, C6.5)", at: 0)
            }
            finding = finding.retold(observed: observed.joined(separator: "; "))
        case .blockedJob(let job), .blockedSeat(let job):
            finding = finding.retold(observed: job + "; " + finding.observed)
            result.events = hang.events.map(\.description).joined(separator: "\n")
        case .stuck:
            let what = hang.stuckSteps.isEmpty ? "tasks never completed" : "drivers could not go on"
            finding = finding.retold(
                message: "controlled run stuck: \(what), and no job or driver step was left to run", observed: finding.observed)
            result.events = hang.events.map(\.description).joined(separator: "\n")
            result.replayEvents = hang.events
        }
        result.findings = record.executorViolations + [finding]
        return result
    }

    /// The checkers over the log at quiescence, the timing and probe checks over the log once
    /// the timers had their slack, and the leaks (C8.1, C8.2). The timing, handler and probe
    /// findings come first: they name the faulty operation (a timer, a handler), where the
    /// outcome checks see its consequences.
    private static func quiescentResult(_ record: RunRecord, slack: Duration) -> ProgramResult {
        var checkers = Checkers(program: record.program, observations: Observations(record.events), snapshot: record.snapshot)
        checkers.runAll()
        var probes = ProbeChecks(program: record.program, slack: slack)
        probes.run(over: record.timedEvents)
        var timing = TimingChecks(
            program: record.program, observations: Observations(record.timedEvents), oracle: checkers.oracle,
            events: record.timedEvents, slack: slack,
            runClock: record.seated && record.notReproducible.isEmpty, clockRelease: record.clockRelease)
        timing.runAll()
        var exercised = checkers.exercised
        exercised.merge(probes.exercised)
        exercised.merge(timing.exercised)
        var judged = checkers.judged
        judged.merge(probes.judged)
        judged.merge(timing.judged)
        var findings = record.executorViolations + probes.findings + timing.findings + checkers.findings
        findings += leaks(record, exercised: &exercised, judged: &judged)
        findings = findings.map(checkers.noted)
        let events = findings.isEmpty ? "" : record.timedEvents.map(\.description).joined(separator: "\n")
        var result = ProgramResult(
            findings: findings, exercised: exercised.rules, checks: exercised.counts, abandoned: false,
            events: events, replayEvents: record.events)
        result.entryPointChecks = judged.checks
        return result
    }

    /// Once everything completed, no body closure may stay alive (C8.1); once the harness
    /// dropped its references, no task, cancellation source or prepared task may (C8.2).
    private static func leaks(_ record: RunRecord, exercised: inout RuleTally, judged: inout EntryPointTally) -> [Finding] {
        var findings: [Finding] = []
        // The leak checks judge every step that made a task or captured a body.
        if !record.tasks.isEmpty || !record.probes.isEmpty {
            judged.judge(record.program.steps.indices.filter { record.program.steps[$0].operation.createdTask != nil })
        }
        if !record.probes.isEmpty { exercised.insert(.c8_1) }
        if !record.liveProbes.isEmpty {
            findings.append(
                Finding(
                    .c8_1, "closures still alive after their tasks completed and ran",
                    expected: "released", observed: record.liveProbes.prefix(10).joined(separator: ", ")))
        }
        if !record.tasks.isEmpty || !record.objects.isEmpty { exercised.insert(.c8_2) }
        if !record.liveObjects.isEmpty {
            findings.append(
                Finding(
                    .c8_2, "cancellation sources or prepared tasks still alive after every reference was dropped",
                    expected: "freed", observed: record.liveObjects.prefix(10).joined(separator: ", ")))
        }
        if !record.liveTasks.isEmpty {
            findings.append(
                Finding(
                    .c8_2, "tasks still alive after every reference was dropped",
                    expected: "freed", observed: record.liveTasks.prefix(10).map { "t\($0)" }.joined(separator: ", ")))
        }
        return findings
    }
}

extension ProgramChecks {
    /// The entry points called by the steps of `record` that started; a pinned-actor form that
    /// fell back to its executor (the backend made no actor executor) called none (C9.10).
    static func calledEntryPoints(_ record: RunRecord) -> Set<EntryPoint> {
        var started: [Int] = []
        var fellBack: Set<Int> = []
        var events = record.timedEvents.isEmpty ? record.events : record.timedEvents
        if case .hung(let hang) = record.ending { events = hang.events }
        for event in events {
            if case .stepStart(let step) = event.kind, step < record.program.steps.count { started.append(step) }
            if case .pinnedUnavailable(let step) = event.kind { fellBack.insert(step) }
        }
        var called: Set<EntryPoint> = []
        for step in started {
            let entryPoints = record.program.steps[step].operation.payload.entryPoints
            called.formUnion(fellBack.contains(step) ? entryPoints.filter { !$0.isPinnedForm } : entryPoints)
        }
        return called
    }
}

/// The progress model of a run: the oracle's phase-one expectations, from the events so far.
struct OracleProgress: ProgressModel {
    func tasksDueInPhaseOne(of program: Program, events: [Event]) -> [Int] {
        let phaseOne = Oracle(program: program, observations: Observations(events)).evaluate(.phaseOne)
        return (0..<program.taskCount).filter { phaseOne[$0].allowed != nil }
    }
}
