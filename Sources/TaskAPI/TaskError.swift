/// Errors the contract itself defines. Everything else a task fails with is the user's error.
public enum TaskError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A non-`try` setter was called on a source that is already completed (C1.3).
    /// The source and its task are unchanged.
    case alreadyCompleted
    /// `timeout(after:)` expired before its task completed (C5.4).
    case timedOut(Duration)
    /// `race` or `any` was given no tasks (C5.3). The payload names the combinator.
    case emptyInput(String)
    /// The task's source was released before anyone completed it (C8.3): nothing can complete
    /// the task any more, so it fails instead of leaving its waiters hanging.
    case abandoned

    public var description: String {
        switch self {
        case .alreadyCompleted:
            return "TaskError.alreadyCompleted: the source is already completed; its outcome is unchanged (C1.3)"
        case .timedOut(let duration):
            return "TaskError.timedOut: the task did not complete within \(duration) (C5.4)"
        case .emptyInput(let name):
            return "TaskError.emptyInput: \(name) needs at least one task (C5.3)"
        case .abandoned:
            return "TaskError.abandoned: the task's source was released without completing it (C8.3)"
        }
    }
}

/// The failure of `any` when no input succeeded (C5.3): every input's error, in input order.
/// A cancelled input contributes a `CancellationError`.
public struct AggregateError: Error, Sendable, CustomStringConvertible {
    public let errors: [any Error]

    public init(_ errors: [any Error]) {
        self.errors = errors
    }

    public var description: String {
        "AggregateError(\(errors.count) errors: \(errors.map { String(describing: $0) }.joined(separator: ", ")))"
    }
}
