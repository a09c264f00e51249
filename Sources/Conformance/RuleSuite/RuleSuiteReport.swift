/// What `RuleSuite.run` found for one backend.
public struct RuleSuiteReport: Sendable, CustomStringConvertible {
    public let backend: String
    /// The checks that ran.
    public internal(set) var checks: [RuleCheck]
    /// Failures of rules not listed in `ConformanceConfiguration.knownIssues`.
    public internal(set) var failures: [RuleFailure]
    /// Failures of the rules listed in `ConformanceConfiguration.knownIssues`: reported, recorded
    /// by adapters as known issues, not failing the report.
    public internal(set) var knownIssues: [RuleFailure] = []
    /// Checks never started: the time limit (`ConformanceConfiguration.timeLimit`) ran out first.
    /// An error of the report: those rules were not checked.
    public internal(set) var notRun: [RuleCheck] = []
    public internal(set) var duration: Duration

    init(backend: String, checks: [RuleCheck], failures: [RuleFailure], duration: Duration) {
        self.backend = backend
        self.checks = checks
        self.failures = failures
        self.duration = duration
    }

    /// Every check that ran held its rule, or broke only a known issue, and every check ran.
    public var passed: Bool { failures.isEmpty && notRun.isEmpty }

    /// The rule ids whose checks ran, in the contract's order.
    public var rules: [Rule] { Self.rules(of: checks) }

    /// The rules with failures, in the contract's order.
    public var brokenRules: [Rule] { Self.rules(of: failures.map(\.rule)) }

    /// The error of a suite cut short by the time limit, if it was.
    public var notRunError: String? {
        guard !notRun.isEmpty else { return nil }
        return "the time limit ran out before \(notRun.count) rule checks started: "
            + Self.ids(Self.rules(of: notRun)) + " (CONFORMANCE_TIME_LIMIT)"
    }

    public var description: String {
        var head =
            "rule suite [\(backend)]: \(checks.count) checks of \(rules.count) rules in \(duration), "
            + (failures.isEmpty
                ? (notRun.isEmpty ? "passed" : "no failures")
                : "\(Self.count(failures.count, "failure")) (\(Self.ids(brokenRules)))")
        if !knownIssues.isEmpty {
            head += "; \(Self.count(knownIssues.count, "known issue")) (\(Self.ids(Self.rules(of: knownIssues.map(\.rule)))))"
        }
        return
            ([head] + (notRunError.map { ["  error: \($0)"] } ?? [])
            + failures.map(\.description)
            + knownIssues.map { "  known issue: \($0.rule) (\($0.check)): \($0.message)" }).joined(separator: "\n")
    }

    /// "1 failure", "3 failures": a count and its noun, for report lines.
    static func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }

    /// A duration as progress lines print it: "0.07 s", "12.4 s", "660 s".
    static func short(_ duration: Duration) -> String {
        let seconds = duration.seconds
        return seconds < 10
            ? "\((seconds * 100).rounded() / 100) s" : seconds < 100 ? "\((seconds * 10).rounded() / 10) s" : "\(Int(seconds.rounded())) s"
    }

    /// Rule ids without repeats, in first-seen order (the checks are in the contract's).
    static func rules(of checks: [RuleCheck]) -> [Rule] { rules(of: checks.map(\.rule)) }

    static func rules(of rules: [Rule]) -> [Rule] {
        var seen = Set<Rule>()
        return rules.filter { seen.insert($0).inserted }
    }

    /// Rule ids as report lines print them: "C1.2 C4.6".
    static func ids(_ rules: [Rule]) -> String { rules.map(\.rawValue).joined(separator: " ") }
}
