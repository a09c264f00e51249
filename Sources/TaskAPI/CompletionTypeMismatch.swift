/// A boxed value was not of the type expected: a bug in the backend that produced it. The typed
/// `whenAll(a, b, ...)` reports it as a failure instead of trapping.
public struct CompletionTypeMismatch: Error, Sendable, CustomStringConvertible {
    public let expected: String
    public let found: String

    public init(expected: String, found: String) {
        self.expected = expected
        self.found = found
    }

    public var description: String { "CompletionTypeMismatch: expected \(expected), found \(found)" }
}
