/// A generated program as plain data: what every driver does, in order, with a stable text form
/// (one step a line) that is the same for a seed on every machine.
///
/// Ids: `t<n>` tasks (sources' tasks included), `k<n>` cancellation sources (tokens), drivers
/// `d<n>`. Values and errors are derived from the step index, so every producer is unique.
public struct Program: Sendable, Hashable, CustomStringConvertible {
    public var seed: UInt64
    public var drivers: Int
    public var serialExecutors: Int
    public var countingExecutors: Int
    public var steps: [Step]

    public init(seed: UInt64, drivers: Int, serialExecutors: Int, countingExecutors: Int, steps: [Step]) {
        self.seed = seed
        self.drivers = drivers
        self.serialExecutors = serialExecutors
        self.countingExecutors = countingExecutors
        self.steps = steps
    }

    /// Number of task ids used (`t0..<taskCount`).
    public var taskCount: Int { steps.compactMap(\.operation.createdTask).map { $0 + 1 }.max() ?? 0 }
    /// Number of token ids used (`k0..<tokenCount`).
    public var tokenCount: Int { steps.compactMap(\.operation.createdToken).map { $0 + 1 }.max() ?? 0 }

    public var description: String {
        var lines = ["program seed=\(seed) drivers=\(drivers) serial=\(serialExecutors) counting=\(countingExecutors) steps=\(steps.count)"]
        for (index, step) in steps.enumerated() {
            lines.append("\(pad(index)) \(step)")
        }
        return lines.joined(separator: "\n")
    }
}

/// One operation done by one driver, then a pause that perturbs the schedule.
public struct Step: Sendable, Hashable, CustomStringConvertible {
    public var driver: Int
    public var operation: ProgramOperation
    public var pause: Pause

    public init(driver: Int, operation: ProgramOperation, pause: Pause) {
        self.driver = driver
        self.operation = operation
        self.pause = pause
    }

    public var description: String {
        let tail = pause == .none ? "" : "  ~\(pause)"
        return "d\(driver) \(operation)\(tail)"
    }
}

/// What a driver does between operations.
public enum Pause: Sendable, Hashable, CustomStringConvertible {
    case none
    case yield(Int)
    case spin(Int)
    case sleep(microseconds: Int)

    public var description: String {
        switch self {
        case .none: return "none"
        case .yield(let n): return "yield(\(n))"
        case .spin(let n): return "spin(\(n))"
        case .sleep(let us): return "sleep(\(us)us)"
        }
    }
}

/// Where a body or continuation runs. `counting` is a user-written executor (C2.5, C7.1).
public enum ExecutorRef: Sendable, Hashable, CustomStringConvertible {
    case `default`
    case inline
    case serial(Int)
    case counting(Int)

    public var description: String {
        switch self {
        case .default: return "default"
        case .inline: return "inline"
        case .serial(let n): return "serial\(n)"
        case .counting(let n): return "counting\(n)"
        }
    }
}

/// How a source is completed; the value or error is derived from the step.
public enum SetterOutcome: String, Sendable, Hashable, CaseIterable {
    case success, failure, cancel
}

/// What a body does: return its value, throw its error, throw `CancellationError`, or call
/// `token.checkpoint()` and then return.
public enum BodyAction: String, Sendable, Hashable, CaseIterable {
    case returns, throwsError = "throws", throwsCancellation = "throwsCancellation", checkpoint
}

/// The kind of continuation.
public enum ContinuationKind: Sendable, Hashable, CustomStringConvertible {
    case continueWith
    case map
    /// `then` returning a value: the same as `map`.
    case then
    /// `flatMap` whose body returns the existing task `t<n>`.
    case flatMapExisting(Int)
    /// `flatMap` whose body returns a new task run on the default executor.
    case flatMapNew
    case recover
    /// `catch` returning a value: the same as `recover`.
    case `catch`
    case finally

    public var description: String {
        switch self {
        case .continueWith: return "continueWith"
        case .map: return "map"
        case .then: return "then"
        case .flatMapExisting(let t): return "flatMap->t\(t)"
        case .flatMapNew: return "flatMap->new"
        case .recover: return "recover"
        case .catch: return "catch"
        case .finally: return "finally"
        }
    }
}

/// The combinators (C5).
public enum CombinatorKind: String, Sendable, Hashable, CaseIterable {
    case whenAll, whenAllSettled, race, any
}

/// Values and errors a program produces: unique per producing step.
public enum ProgramValues {
    /// The value of the setter, completed task or body at `step`.
    public static func value(step: Int) -> Int { step + 1 }
    /// The value of the inner task a `flatMap->new` at `step` makes.
    public static func innerValue(step: Int) -> Int { 100_000 + step + 1 }
    /// The value a held source at `step` gets from the harness.
    public static func heldValue(step: Int) -> Int { -(step + 1) }
}

/// The error type of programs: `ProgramError(id)` names its producer.
public struct ProgramError: Error, Sendable, Hashable, CustomStringConvertible {
    public let id: Int
    public init(_ id: Int) { self.id = id }
    public var description: String { "E\(id)" }
}

func pad(_ index: Int) -> String {
    let text = String(index)
    return String(repeating: " ", count: max(0, 4 - text.count)) + text
}
