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
    /// The program, one step a line.
    public let program: String
    /// A shell line that runs exactly this program again.
    public let replay: String
    public let callSite: CallSite
    /// The run's event log, one event a line (`#seq driver thread event`).
    public let events: String
    /// Whether `description` includes `events` (`CONFORMANCE_EVENTS=1`).
    public let showsEvents: Bool

    public var description: String {
        """
        [\(backend)] \(rule) broken: \(message)
          expected: \(expected)
          observed: \(observed)
          seed: \(seed)
          replay: \(replay)
        \(program)
        """ + (showsEvents ? "\nevents:\n" + events : "")
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

    public var passed: Bool { failures.isEmpty }

    public var description: String {
        let rules = rulesExercised.keys.sorted().map { "\($0)×\(rulesExercised[$0] ?? 0)" }.joined(separator: " ")
        let unexercised = Rule.allCases.filter { rulesExercised[$0] == nil }.map(\.rawValue).joined(separator: " ")
        var lines = [
            "conformance [\(backend)] base seed \(baseSeed): \(programsRun) programs, \(stepsRun) steps in \(duration), "
                + (passed ? "passed" : "\(failures.count) failures") + (abandoned ? " (abandoned after a hang)" : ""),
            "  rules exercised: \(rules)",
            "  not exercised by generated programs: \(unexercised)",
        ]
        lines += knownIssues.map { "  known issue: \($0.rule) (seed \($0.seed)): \($0.message)" }
        lines += failures.map(\.description)
        return lines.joined(separator: "\n")
    }
}
