/// A finding: one rule broken, with what the contract expects and what was observed.
public struct Finding: Sendable, Hashable, CustomStringConvertible {
    public var description: String { "\(rule) broken: \(message) (expected: \(expected); observed: \(observed))" }

    public let rule: Rule
    public let message: String
    public let expected: String
    public let observed: String

    public init(_ rule: Rule, _ message: String, expected: String, observed: String) {
        self.rule = rule
        self.message = message
        self.expected = expected
        self.observed = observed
    }
}
