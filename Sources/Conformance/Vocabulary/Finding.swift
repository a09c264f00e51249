/// A finding: one rule broken, with what the contract expects and what was observed.
public struct Finding: Sendable, Hashable, CustomStringConvertible {
    public var description: String { "\(rule) broken: \(message) (expected: \(expected); observed: \(observed))" }

    public let rule: Rule
    public let message: String
    public let expected: String
    public let observed: String
    /// A hang's further findings (the watchdog's: its first, whose rule this finding is, is the
    /// likely culprit): every other rule broken that the diagnosis of the hang observed or
    /// inferred, in its order (direct findings first), each with its own rule and message.
    /// Empty for every other finding.
    public internal(set) var alsoFound: [Finding] = []

    /// This finding's rule, then its `alsoFound`'s, each once: every rule it reports broken.
    public var rules: [Rule] { Self.rules(rule, then: alsoFound) }

    /// `first`, then the rules of `others`, each once.
    static func rules(_ first: Rule, then others: [Finding]) -> [Rule] {
        var rules = [first]
        for finding in others where !rules.contains(finding.rule) { rules.append(finding.rule) }
        return rules
    }

    public init(_ rule: Rule, _ message: String, expected: String, observed: String) {
        self.rule = rule
        self.message = message
        self.expected = expected
        self.observed = observed
    }

    /// The same finding (its rule and `alsoFound`), told with another message or observation.
    func retold(message: String? = nil, observed: String) -> Finding {
        var finding = Finding(rule, message ?? self.message, expected: expected, observed: observed)
        finding.alsoFound = alsoFound
        return finding
    }
}
