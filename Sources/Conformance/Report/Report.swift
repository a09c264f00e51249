/// Where a check was called from, so a failure points at the caller's line.
public struct CallSite: Sendable, Hashable {
    public let fileID: String
    public let filePath: String
    public let line: Int
    public let column: Int

    public init(fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column) {
        self.fileID = fileID
        self.filePath = filePath
        self.line = line
        self.column = column
    }
}

/// One failing program: the rule, the seed, the program, expected versus observed, and the line
/// that replays it.
public struct ConformanceFailure: Sendable, CustomStringConvertible {
    public let backend: String
    public let rule: Rule
    public let seed: UInt64
    public let message: String
    public let expected: String
    public let observed: String
    /// The program as generated (its `description`: one step a line).
    public let program: Program
    /// A shell line that runs exactly this program again.
    public internal(set) var replay: String
    public let callSite: CallSite
    /// The run's event log, one event a line (`#seq driver thread event`).
    public let events: String
    /// Whether `description` includes `events` (`CONFORMANCE_EVENTS=1`).
    public let showsEvents: Bool
    /// The mode that found it: `stress` or `controlled-<strategy>`.
    public let mode: ScheduleMode
    /// Controlled mode: what came from outside the harness, so that the schedule may not replay.
    public let notReproducible: [String]
    /// The shrunk program that still breaks `rule` (nil: not shrunk): a value to run again
    /// (`Conformance.runProgram(_:program:mode:)`), to edit, or to print.
    public let shrunkProgram: Program?
    /// The mode the shrunk program fails in (PCT's depth may be lower).
    public let shrunkMode: ScheduleMode?
    /// What the shrunk program broke (its task and step numbers are the shrunk program's).
    public let shrunkFinding: Finding?
    /// Candidate programs the shrinker ran, and how long it took.
    public let shrinkRuns: Int
    public let shrinkDuration: Duration

    /// Steps of the program as generated.
    public var originalSize: Int { program.steps.count }
    /// Steps of the shrunk program.
    public var shrunkSize: Int? { shrunkProgram?.steps.count }

    public var description: String {
        var text = """
        [\(backend)] \(rule) broken: \(message)
          expected: \(expected)
          observed: \(observed)
          found by: \(mode) mode\(notReproducible.isEmpty ? "" : " (not reproducible: \(notReproducible.joined(separator: "; ")))")
          seed: \(seed)
          replay: \(replay)
        """
        if let shrunkProgram, let shrunkSize {
            text += "\nshrunk counterexample: \(shrunkSize) steps (from \(originalSize)), \(shrunkMode ?? mode) mode, "
                + "\(shrinkRuns) candidate runs in \(shrinkDuration)"
            if let shrunkFinding {
                text += "\n  \(shrunkFinding.message)\n    expected: \(shrunkFinding.expected)\n    observed: \(shrunkFinding.observed)"
            }
            text += "\n\(shrunkProgram)"
            if showsEvents { text += "\noriginal program:\n\(program)" }
        } else {
            text += "\n\(program)"
        }
        return text + (showsEvents ? "\nevents:\n" + events : "")
    }
}

/// What a run found, per backend.
public struct ConformanceReport: Sendable, CustomStringConvertible {
    public let backend: String
    public let baseSeed: UInt64
    public let programsRun: Int
    public let stepsRun: Int
    public let duration: Duration
    /// How many programs tested each rule.
    public let rulesExercised: [Rule: Int]
    public let failures: [ConformanceFailure]
    /// Failures of rules listed in `ConformanceConfiguration.knownIssues` (at most one per rule).
    public let knownIssues: [ConformanceFailure]
    /// Set when the run stopped early: a hang left threads blocked inside the backend.
    public let abandoned: Bool
    /// How many of `programsRun` ran in controlled mode.
    public let controlledPrograms: Int
    /// Whether those ran on the seated engine (the backend is instrumented: every synchronization a
    /// schedule point) rather than on interposed executors (jobs handed over whole).
    public internal(set) var seated = false
    /// Controlled runs that saw work from outside the harness (a backend's thread, a timer):
    /// not failures, but their schedules may not replay.
    public let notReproducible: [String]
    /// The shard this run covered (`CONFORMANCE_SHARD`).
    public internal(set) var shard: Shard?
    /// Errors that are not a rule broken but stop the check from meaning anything: a
    /// `CONFORMANCE_*` variable that does not parse, a replay that ran no program. Adapters must
    /// record them as failures.
    public internal(set) var errors: [String] = []
    /// Set when this check ran nothing because a replay names another backend (not a failure).
    public internal(set) var skippedForReplay: String?
    /// How many checks of each rule ran, over every program.
    public internal(set) var checksRun: [Rule: Int] = [:]
    /// The rule suite's results, when the check ran it (`Conformance.checkAll`).
    public internal(set) var ruleSuite: RuleSuiteReport?

    /// Every rule of the contract with the programs that exercised it and the checks that ran,
    /// as a Markdown table (docs/CONFORMANCE.md).
    public var coverageTable: String {
        (["| rule | programs | checks |", "| --- | --- | --- |"]
            + Rule.allCases.map { rule in
                let programs = rulesExercised[rule].map(String.init) ?? "not exercised"
                return "| \(rule) | \(programs) | \(checksRun[rule] ?? 0) |"
            }).joined(separator: "\n")
    }

    public var passed: Bool { failures.isEmpty && errors.isEmpty && ruleSuite?.passed != false }

    public var description: String {
        if let skippedForReplay {
            return "conformance [\(backend)] skipped: this run replays backend \(skippedForReplay) (CONFORMANCE_REPLAY)"
        }
        if !errors.isEmpty, programsRun == 0 {
            return (["conformance [\(backend)] did not run:"] + errors.map { "  error: \($0)" }).joined(separator: "\n")
        }
        let rules = rulesExercised.keys.sorted().map { "\($0)×\(rulesExercised[$0] ?? 0)/\(checksRun[$0] ?? 0)" }.joined(separator: " ")
        let unexercised = Rule.allCases.filter { rulesExercised[$0] == nil }.map(\.rawValue).joined(separator: " ")
        var lines = [
            "conformance [\(backend)] base seed \(baseSeed)\(shard.map { ", shard \($0)" } ?? ""): \(programsRun) programs, \(stepsRun) steps in \(duration), "
                + "(\(controlledPrograms) controlled\(seated ? " on seats" : ""), \(programsRun - controlledPrograms) stress), "
                + (passed ? "passed" : "\(failures.count) failures") + (abandoned ? " (abandoned after a hang)" : ""),
            "  rules exercised (programs/checks): \(rules)",
            "  not exercised by generated programs: \(unexercised.isEmpty ? "none" : unexercised)",
        ]
        if !notReproducible.isEmpty {
            lines.append("  not reproducible (work from outside the harness): \(notReproducible.count) controlled programs, e.g. \(notReproducible[0])")
        }
        lines += errors.map { "  error: \($0)" }
        lines += knownIssues.map { "  known issue: \($0.rule) (seed \($0.seed)): \($0.message)" }
        lines += failures.map(\.description)
        if let ruleSuite { lines.append(ruleSuite.description) }
        return lines.joined(separator: "\n")
    }
}
