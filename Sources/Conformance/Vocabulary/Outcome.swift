import TaskAPI

/// A task's outcome as a comparable value: what the oracle predicts and the log records.
public indirect enum Outcome: Sendable, Hashable, CustomStringConvertible {
    case success(Int)
    /// `whenAll`'s values, in input order.
    case values([Int])
    /// `whenAllSettled`'s outcomes, in input order.
    case settled([Outcome])
    case failure(ErrorValue)
    case cancelled

    public var description: String {
        switch self {
        case .success(let v): return "success(\(v))"
        case .values(let vs): return "success([\(vs.map(String.init).joined(separator: ", "))])"
        case .settled(let os): return "success([\(os.map(\.description).joined(separator: ", "))])"
        case .failure(let e): return "failure(\(e))"
        case .cancelled: return "cancelled"
        }
    }

    var isSuccess: Bool {
        switch self {
        case .success, .values, .settled: return true
        case .failure, .cancelled: return false
        }
    }

    var isFailure: Bool { if case .failure = self { return true } else { return false } }

    /// The error `any` collects for this input (C5.3).
    var anyError: ErrorValue? {
        switch self {
        case .failure(let e): return e
        case .cancelled: return .cancellation
        case .success, .values, .settled: return nil
        }
    }
}

/// An error as a comparable value.
public indirect enum ErrorValue: Sendable, Hashable, CustomStringConvertible {
    case program(Int)
    case cancellation
    case aggregate([ErrorValue])
    case emptyInput(String)
    case alreadyCompleted
    /// `TaskError.abandoned`: a source released while pending (C8.3).
    case abandoned
    /// `TaskError.timedOut`, with its duration in whole microseconds.
    case timedOut(microseconds: Int64)
    case foreign(String)

    public init(_ error: any Error) {
        switch error {
        case let e as ProgramError: self = .program(e.id)
        case is CancellationError: self = .cancellation
        case let e as AggregateError: self = .aggregate(e.errors.map(ErrorValue.init))
        case let e as TaskError:
            switch e {
            case .alreadyCompleted: self = .alreadyCompleted
            case .timedOut(let duration):
                let (seconds, attoseconds) = duration.components
                self = .timedOut(microseconds: seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
            case .emptyInput(let name): self = .emptyInput(name)
            case .abandoned: self = .abandoned
            }
        default: self = .foreign(String(describing: error))
        }
    }

    public var description: String {
        switch self {
        case .program(let id): return "E\(id)"
        case .cancellation: return "CancellationError"
        case .aggregate(let es): return "AggregateError[\(es.map(\.description).joined(separator: ", "))]"
        case .emptyInput(let name): return "emptyInput(\(name))"
        case .alreadyCompleted: return "alreadyCompleted"
        case .abandoned: return "abandoned"
        case .timedOut(let us): return "timedOut(\(us)us)"
        case .foreign(let text): return "foreign(\(text))"
        }
    }
}

extension Outcome {
    init(_ completion: Completion<Int>) {
        switch completion {
        case .success(let v): self = .success(v)
        case .failure(let e): self = .failure(ErrorValue(e))
        case .cancelled: self = .cancelled
        }
    }

    init(_ completion: Completion<[Int]>) {
        switch completion {
        case .success(let vs): self = .values(vs)
        case .failure(let e): self = .failure(ErrorValue(e))
        case .cancelled: self = .cancelled
        }
    }

    init(_ completion: Completion<[Completion<Int>]>) {
        switch completion {
        case .success(let cs): self = .settled(cs.map { Outcome($0) })
        case .failure(let e): self = .failure(ErrorValue(e))
        case .cancelled: self = .cancelled
        }
    }

    /// `delay`'s `()` is logged as `success(0)`: no producer makes the value 0.
    init(_ completion: Completion<Void>) {
        switch completion {
        case .success: self = .success(0)
        case .failure(let e): self = .failure(ErrorValue(e))
        case .cancelled: self = .cancelled
        }
    }

    /// The outcome of an `await` that returned `value` or threw `error`.
    init(awaiting result: Result<Outcome, any Error>) {
        switch result {
        case .success(let outcome): self = outcome
        case .failure(let error): self = error is CancellationError ? .cancelled : .failure(ErrorValue(error))
        }
    }
}

extension Completion {
    func mapped<U: Sendable>(_ transform: (Success) -> U) -> Completion<U> {
        switch self {
        case .success(let value): return .success(transform(value))
        case .failure(let error): return .failure(error)
        case .cancelled: return .cancelled
        }
    }
}
