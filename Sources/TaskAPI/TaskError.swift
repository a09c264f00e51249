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
    /// the task any more, so it fails instead of leaving its waiters hanging. In debug builds,
    /// `origin` says where the source was made (`nil` in release builds, and for a source made
    /// by a backend that does not record it). Match it as `catch TaskError.abandoned` or
    /// `case .abandoned:`; `TaskError.abandoned` equals it whatever its origin.
    case abandoned(origin: SourceOrigin?)

    /// `abandoned` with no origin: equal to every `abandoned` error (`==` ignores the origin).
    public static var abandoned: TaskError { .abandoned(origin: nil) }

    /// Equal cases with equal payloads, except that two `abandoned` errors are equal whatever
    /// their origins: the origin is a debugging aid, not part of the outcome.
    public static func == (lhs: TaskError, rhs: TaskError) -> Bool {
        switch (lhs, rhs) {
        case (.alreadyCompleted, .alreadyCompleted), (.abandoned, .abandoned): return true
        case (.timedOut(let a), .timedOut(let b)): return a == b
        case (.emptyInput(let a), .emptyInput(let b)): return a == b
        case (.alreadyCompleted, _), (.timedOut, _), (.emptyInput, _), (.abandoned, _): return false
        }
    }

    public var description: String {
        switch self {
        case .alreadyCompleted:
            return "TaskError.alreadyCompleted: the source is already completed; its outcome is unchanged (C1.3)"
        case .timedOut(let duration):
            return "TaskError.timedOut: the task did not complete within \(duration) (C5.4)"
        case .emptyInput(let name):
            return "TaskError.emptyInput: \(name) needs at least one task (C5.3)"
        case .abandoned(let origin?):
            return "TaskError.abandoned: the task's source, made at \(origin), was released without completing it (C8.3)"
        case .abandoned(nil):
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
