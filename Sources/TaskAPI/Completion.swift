/// The outcome of a task (C1.1): exactly one of success, failure or cancellation.
///
/// A task is pending until it holds a `Completion`; once it does, the value never changes.
public enum Completion<Success: Sendable>: Sendable {
    /// The task produced a value.
    case success(Success)
    /// The task failed with an error (C3.1).
    case failure(any Error)
    /// The task was cancelled (C3.2, C4.3).
    case cancelled

    /// Runs `body` and captures its outcome: a returned value is `.success`, a thrown error is
    /// what `init(thrown:)` says.
    @inlinable
    public init(catching body: () throws -> Success) {
        do {
            self = .success(try body())
        } catch {
            self.init(thrown: error)
        }
    }

    /// The outcome of a body that threw `error`: a `CancellationError` is `.cancelled` (C3.2),
    /// any other error is `.failure` with it (C3.1). The one place that decides it: TaskAPI's
    /// runners and every backend of this package go through it.
    @inlinable
    public init(thrown error: any Error) {
        self = error is CancellationError ? .cancelled : .failure(error)
    }

    /// Returns the value, or throws: the failure's error, or `CancellationError` when cancelled (C6.1).
    @inlinable
    public func get() throws -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let error): throw error
        case .cancelled: throw CancellationError()
        }
    }

    /// The value on success, `nil` otherwise.
    @inlinable
    public var value: Success? {
        if case .success(let value) = self { return value }
        return nil
    }

    /// The error on failure, `nil` otherwise.
    @inlinable
    public var error: (any Error)? {
        if case .failure(let error) = self { return error }
        return nil
    }

    @inlinable public var isSuccess: Bool { if case .success = self { return true } else { return false } }
    @inlinable public var isFailure: Bool { if case .failure = self { return true } else { return false } }
    @inlinable public var isCancelled: Bool { if case .cancelled = self { return true } else { return false } }

    /// The kind of outcome, without its payload.
    @inlinable
    public var kind: CompletionKind {
        switch self {
        case .success: return .success
        case .failure: return .failure
        case .cancelled: return .cancelled
        }
    }
}

/// The kind of a `Completion`, without its payload: handy for logs and comparisons.
public enum CompletionKind: String, Sendable, Hashable, CaseIterable {
    case success, failure, cancelled
}

/// Where a task is in its life (C1.5). Status only moves forward: pending, then (for tasks
/// with a body) running, then completed.
public enum TaskStatus: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Not completed and no body running: waiting on a source, an antecedent, or an executor.
    case pending
    /// The task's body has started and not finished.
    case running
    /// The task holds its `Completion`.
    case completed

    public static func < (lhs: TaskStatus, rhs: TaskStatus) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .pending: return "pending"
        case .running: return "running"
        case .completed: return "completed"
        }
    }
}
