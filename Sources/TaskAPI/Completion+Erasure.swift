/// An outcome whose value is boxed: what a backend can store in non-generic state.
///
/// Generic code called through an existential (`any AsyncTask<T>`) runs unspecialized, and every
/// composite generic type it touches (`Completion<T>`, `Optional<Completion<T>>`, a generic state
/// machine) costs a runtime metadata lookup. A backend that keeps `AnyCompletion` in its state and
/// converts at its API boundary touches `Completion<T>` only there.
public typealias AnyCompletion = Completion<any Sendable>

extension Completion {
    /// This outcome with its value boxed.
    @inlinable
    public var erased: AnyCompletion {
        switch self {
        case .success(let value): return .success(value)
        case .failure(let error): return .failure(error)
        case .cancelled: return .cancelled
        }
    }
}

extension Completion where Success == any Sendable {
    /// The outcome with its value unboxed as `T`. A value that is not a `T` (a backend bug, never
    /// produced by `erased`) becomes a failure with `CompletionTypeMismatch`, not a trap.
    @inlinable
    public func typed<T: Sendable>(as type: T.Type = T.self) -> Completion<T> {
        switch self {
        case .success(let value):
            guard let typed = value as? T else {
                return .failure(CompletionTypeMismatch(expected: "\(T.self)", found: "\(Swift.type(of: value))"))
            }
            return .success(typed)
        case .failure(let error): return .failure(error)
        case .cancelled: return .cancelled
        }
    }
}

extension Completion where Success == any Sendable {
    /// Runs `body` and captures its outcome, boxed: a returned value is `.success`, a thrown
    /// `CancellationError` is `.cancelled` (C3.2), any other error is `.failure` (C3.1).
    @inlinable
    public init<T: Sendable>(boxing body: () throws -> T) {
        do {
            self = .success(try body())
        } catch is CancellationError {
            self = .cancelled
        } catch {
            self = .failure(error)
        }
    }

    /// `value` unboxed as a `T`; a value of another type (a backend bug) throws
    /// `CompletionTypeMismatch` instead of trapping.
    @inlinable
    public static func unbox<T>(_ value: any Sendable, as type: T.Type = T.self) throws -> T {
        guard let typed = value as? T else {
            throw CompletionTypeMismatch(expected: "\(T.self)", found: "\(Swift.type(of: value))")
        }
        return typed
    }
}

/// `typed(as:)` met a value of another type: a bug in the backend that stored it.
public struct CompletionTypeMismatch: Error, Sendable, CustomStringConvertible {
    public let expected: String
    public let found: String

    public init(expected: String, found: String) {
        self.expected = expected
        self.found = found
    }

    public var description: String { "CompletionTypeMismatch: expected \(expected), found \(found)" }
}
