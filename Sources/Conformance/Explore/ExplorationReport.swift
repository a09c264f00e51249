/// What `Conformance.explore(makeBackend:program:preemptions:configuration:)` found: how many
/// schedules of the program it ran, whether it ran every one within the bound, and the failing
/// schedule, named so that it replays exactly.
public struct ExplorationReport: Sendable, CustomStringConvertible {
    public let program: Program
    /// The preemption bound.
    public let preemptions: Int
    /// Schedules run (the failing one included).
    public let schedules: Int
    /// Every schedule within the bound ran (and none failed).
    public let finished: Bool
    /// Why it stopped before that, or nil.
    public let stoppedBy: ExplorationStop?
    public let duration: Duration
    /// What the failing schedule broke (empty: none failed).
    public let findings: [Finding]
    /// The failing schedule's mode (`controlled-exhaustive2@p4:1,9:0`), or the last schedule's:
    /// `Conformance.runProgram(_:program:mode:configuration:attempts:)` in this mode runs exactly
    /// it again.
    public let mode: ScheduleMode
    /// That schedule's event log (`Event.replayDescription`: no threads, no times).
    public let eventLines: [String]
    /// Why the exploration could not go on exactly: a schedule that did not replay its choices,
    /// or saw work from outside the run (empty: every schedule was reproducible).
    public let notReproducible: [String]

    init(
        program: Program, exploration: ExplorationTally, findings: [Finding], mode: ScheduleMode, eventLines: [String],
        notReproducible: [String]
    ) {
        self.program = program
        preemptions = exploration.preemptions
        schedules = exploration.schedules
        finished = exploration.finished == 1
        stoppedBy = exploration.stopped.keys.first
        duration = exploration.duration
        self.findings = findings
        self.mode = mode
        self.eventLines = eventLines
        self.notReproducible = notReproducible
    }

    /// No schedule failed, and every one was reproducible (whether or not all ran: `finished`).
    public var passed: Bool { findings.isEmpty && notReproducible.isEmpty }

    public var description: String {
        var text =
            "exhaustive exploration (at most \(preemptions) preemptions) of program seed=\(program.seed): "
            + "\(schedules) schedules in \(duration), "
            + (finished ? "finished (every schedule within the bound ran)" : "stopped at \(stoppedBy?.description ?? "a limit")")
        for finding in findings {
            text += "\n  \(finding.rule) broken: \(finding.message)\n    expected: \(finding.expected)\n    observed: \(finding.observed)"
        }
        if !findings.isEmpty { text += "\n  failing schedule: \(mode) (runProgram in this mode runs it again)" }
        if !notReproducible.isEmpty { text += "\n  not reproducible: " + notReproducible.joined(separator: "; ") }
        return text
    }
}
