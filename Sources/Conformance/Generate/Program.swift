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

/// The task a body returns, for the forms whose body returns a task (C2.6, C9.5): an existing
/// task of the program, or one the body makes: a new one run on the default executor, or one
/// already succeeded, failed or cancelled (its value and error `innerValue` of the step).
public enum InnerTask: Sendable, Hashable, CustomStringConvertible {
    case existing(Int)
    case new
    case succeeded
    case failed
    case cancelled

    public var description: String {
        switch self {
        case .existing(let t): return "t\(t)"
        case .new: return "new"
        case .succeeded: return "succeeded"
        case .failed: return "failed"
        case .cancelled: return "cancelled"
        }
    }

    /// The task id it takes, if an existing one.
    var task: Int? { if case .existing(let t) = self { return t } else { return nil } }

    /// The outcome of a task the body makes at `step`; nil for an existing one (the model's).
    func madeOutcome(step: Int) -> Outcome? {
        let value = ProgramValues.innerValue(step: step)
        switch self {
        case .existing: return nil
        case .new, .succeeded: return .success(value)
        case .failed: return .failure(.program(value))
        case .cancelled: return .cancelled
        }
    }

    /// The same inner task with its id mapped.
    func renumbered(_ ids: Renumbering) -> InnerTask {
        if case .existing(let t) = self { return .existing(ids.task(t)) }
        return self
    }

    /// What the body calls to make it: `run` on the default executor, `succeeded`,
    /// `failed(_:as:)`, `cancelled(as:)`.
    var entryPoints: [EntryPoint] {
        switch self {
        case .existing: return []
        case .new: return [.run, .defaultExecutor]
        case .succeeded: return [.succeeded]
        case .failed: return [.failedAs]
        case .cancelled: return [.cancelledAs]
        }
    }
}

/// The kind of continuation: each of `AsyncTask`'s continuation entry points. A name says what
/// its body returns (C2.6): the forms named for a task (`continueWithTask`, `flatMap`,
/// `recoverTask`, `finallyTask`) carry the task their body returns, whose outcome they take; the
/// value forms `continueWith`, `map` and `then` may be given a body returning a task too
/// (`continueWith=>t3`), which they keep as their value: `continueWith` and `map` at once,
/// `then`, the promise word, once that task has completed (failed or cancelled as it did).
public enum ContinuationKind: Sendable, Hashable, CustomStringConvertible {
    case continueWith
    /// `continueWithTask`: the body returns a task, whose outcome the continuation takes (C2.6).
    case continueWithTask(InnerTask)
    case map
    /// `then`: `map`, for a body returning a value.
    case then
    case flatMap(InnerTask)
    case recover
    /// `recoverTask`: the handler returns a task, whose outcome the continuation takes.
    case recoverTask(InnerTask)
    /// `catch`: the same as `recover`.
    case `catch`
    case finally
    /// `finallyTask`: the body returns a `Void` task (an existing task's `asVoid()`, or one it
    /// makes), awaited before the outcome passes on (C3.3).
    case finallyTask(InnerTask)
    /// `continueWith`, `map`, `then` whose body returns a task: their value is that task, and
    /// `then` waits for it (C2.6).
    case continueWithKeeping(InnerTask)
    case mapKeeping(InnerTask)
    case thenKeeping(InnerTask)

    /// `flatMap` whose body returns the existing task `t<n>`.
    public static func flatMapExisting(_ t: Int) -> Self { .flatMap(.existing(t)) }
    /// `flatMap` whose body returns a new task run on the default executor.
    public static let flatMapNew = Self.flatMap(.new)

    public var description: String {
        switch self {
        case .continueWith: return "continueWith"
        case .continueWithTask(let inner): return "continueWithTask->\(inner)"
        case .map: return "map"
        case .then: return "then"
        case .flatMap(let inner): return "flatMap->\(inner)"
        case .recover: return "recover"
        case .recoverTask(let inner): return "recoverTask->\(inner)"
        case .catch: return "catch"
        case .finally: return "finally"
        case .finallyTask(let inner): return "finallyTask->\(inner)"
        case .continueWithKeeping(let kept): return "continueWith=>\(kept)"
        case .mapKeeping(let kept): return "map=>\(kept)"
        case .thenKeeping(let kept): return "then=>\(kept)"
        }
    }

    /// The text, with the task the body returns marked foreign when `foreignInner` and the form
    /// unwraps it (`flatMap->foreign new`: a `Chain` handing the form a `ForeignTask`).
    func text(foreignInner: Bool) -> String {
        guard foreignInner, let inner else { return description }
        let name = description.prefix { $0 != "-" }
        return "\(name)->\(ForeignStream.text(inner.description, foreign: true))"
    }

    /// The task the body returns, for the forms named for a task, which take its outcome.
    public var inner: InnerTask? {
        switch self {
        case .continueWithTask(let inner), .flatMap(let inner), .recoverTask(let inner), .finallyTask(let inner):
            return inner
        case .continueWith, .map, .then, .recover, .catch, .finally, .continueWithKeeping, .mapKeeping, .thenKeeping:
            return nil
        }
    }

    /// The task the body returns, for a value form given such a body, which keeps it as its value.
    public var kept: InnerTask? {
        switch self {
        case .continueWithKeeping(let kept), .mapKeeping(let kept), .thenKeeping(let kept): return kept
        case .continueWith, .continueWithTask, .map, .then, .flatMap, .recover, .recoverTask, .catch, .finally, .finallyTask: return nil
        }
    }

    /// The task the body returns, unwrapped or kept.
    var returned: InnerTask? { inner ?? kept }

    /// The task the body returns that the continuation's task waits for: the one it unwraps, or
    /// the one `then` keeps (C2.6).
    var awaited: InnerTask? {
        if case .thenKeeping(let kept) = self { return kept }
        return inner
    }

    /// Whether the kind has a protocol requirement, `(on: any AsyncTaskExecutor, token:)`, besides its
    /// conveniences; `then` and `catch` are conveniences only, one candidate taking an optional
    /// executor and a token (C9.1).
    var hasRequirementForm: Bool {
        switch self {
        case .then, .catch, .thenKeeping: return false
        case .continueWith, .continueWithTask, .map, .flatMap, .recover, .recoverTask, .finally, .finallyTask, .continueWithKeeping,
            .mapKeeping:
            return true
        }
    }

    /// `finally` and `finallyTask` run on every outcome and take no token (C3.3).
    var takesToken: Bool {
        switch self {
        case .finally, .finallyTask: return false
        case .continueWith, .continueWithTask, .map, .then, .flatMap, .recover, .recoverTask, .catch, .continueWithKeeping, .mapKeeping,
            .thenKeeping:
            return true
        }
    }

    /// The same kind with the returned task's id mapped.
    func renumbered(_ ids: Renumbering) -> ContinuationKind {
        switch self {
        case .continueWithTask(let inner): return .continueWithTask(inner.renumbered(ids))
        case .flatMap(let inner): return .flatMap(inner.renumbered(ids))
        case .recoverTask(let inner): return .recoverTask(inner.renumbered(ids))
        case .finallyTask(let inner): return .finallyTask(inner.renumbered(ids))
        case .continueWithKeeping(let kept): return .continueWithKeeping(kept.renumbered(ids))
        case .mapKeeping(let kept): return .mapKeeping(kept.renumbered(ids))
        case .thenKeeping(let kept): return .thenKeeping(kept.renumbered(ids))
        case .continueWith, .map, .then, .recover, .catch, .finally: return self
        }
    }
}

/// Where a step's call is made when not by its driver directly: inside a continuation the
/// driver registers on task `t<of>` with `whenComplete(on:)`, or inside a job the driver hands
/// to an executor with `execute` (a body). Registering and completing from inside continuations
/// and bodies are the call shapes C2.4 and C2.7 are about: on the inline executor, a
/// registration made while inline work runs is queued behind it (C2.7's decision).
public enum CallHost: Sendable, Hashable, CustomStringConvertible {
    case continuation(of: Int, on: ExecutorRef)
    case job(on: ExecutorRef)

    public var description: String {
        switch self {
        case .continuation(let t, let executor): return "in t\(t).whenComplete(on: \(executor))"
        case .job(let executor): return "in \(executor).execute"
        }
    }

    var executor: ExecutorRef {
        switch self {
        case .continuation(_, let executor), .job(let executor): return executor
        }
    }

    /// The task whose completion runs it, if any.
    var antecedent: Int? { if case .continuation(let t, _) = self { return t } else { return nil } }

    func renumbered(_ ids: Renumbering) -> CallHost {
        switch self {
        case .continuation(let t, let executor): return .continuation(of: ids.task(t), on: executor)
        case .job: return self
        }
    }

    /// The entry points the host itself calls.
    var entryPoints: [EntryPoint] {
        switch self {
        case .continuation(_, let executor): return [.whenCompleteOn] + executor.entryPoints
        case .job(let executor): return [.execute] + executor.entryPoints
        }
    }
}

/// `host.description + ": "`, or nothing for a call made by the driver itself.
func hostPrefix(_ host: CallHost?) -> String { host.map { "\($0): " } ?? "" }

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
    /// What the harness reads from a value form given a body returning a task (C2.6) when its
    /// value is not the task the body returned: no producer makes it.
    public static let notTheReturnedTask = -1_000_000_000
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
