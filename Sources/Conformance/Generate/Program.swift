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
    public var tokenCount: Int {
        steps.compactMap { if case .makeToken(let k, _) = $0.operation { return k + 1 } else { return nil } }.max() ?? 0
    }

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
    public var operation: Operation
    public var pause: Pause

    public init(driver: Int, operation: Operation, pause: Pause) {
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
public enum SetterOutcome: String, Sendable, Hashable {
    case success, failure, cancel
}

/// What a body does: return its value, throw its error, throw `CancellationError`, or call
/// `token.checkpoint()` and then return.
public enum BodyAction: String, Sendable, Hashable {
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
public enum CombinatorKind: String, Sendable, Hashable {
    case whenAll, whenAllSettled, race, any
}

/// One operation of a program.
public enum Operation: Sendable, Hashable, CustomStringConvertible {
    /// A new source for task `t`; a held source is completed by the harness only after every
    /// driver finished, with `held`'s outcome.
    case makeSource(task: Int, held: SetterOutcome?)
    /// A setter on `source`'s task: `try` setters, or the throwing ones (C1.2, C1.3).
    case complete(source: Int, outcome: SetterOutcome, throwing: Bool)
    /// `backend.completed(_:)` (C1.4).
    case makeCompleted(task: Int, outcome: SetterOutcome)
    /// `backend.run(on:token:_:)`.
    case run(task: Int, executor: ExecutorRef, token: Int?, body: BodyAction)
    /// A continuation on `antecedent`.
    case chain(task: Int, kind: ContinuationKind, antecedent: Int, executor: ExecutorRef, token: Int?, body: BodyAction)
    /// A combinator over `inputs` (possibly empty).
    case combine(task: Int, kind: CombinatorKind, inputs: [Int])
    /// `backend.delay(_:token:)`: succeeds (with `()`, logged as `success(0)`) after the delay (C5.4).
    case delay(task: Int, microseconds: Int, token: Int?)
    /// `antecedent.timeout(after:)` (C5.4).
    case timeout(task: Int, antecedent: Int, microseconds: Int)
    /// A new cancellation source, optionally linked to another one (C4.6).
    case makeToken(token: Int, linkedTo: Int?)
    case cancel(token: Int)
    case cancelAfter(token: Int, microseconds: Int)
    /// A blocking `wait()`; only generated when every completion it depends on comes earlier.
    case wait(task: Int)
    case waitTimeout(task: Int, microseconds: Int)
    /// `await task.value` in a new Swift task; `cancelled`: that Swift task is cancelled at once.
    case await(task: Int, cancelled: Bool)
    /// The driver forgets its reference to `task`.
    case drop(task: Int)
    /// The harness releases its last reference to `source`'s source (it keeps the task): a
    /// source released pending fails its task with `abandoned`; a completed one changes nothing (C8.3).
    case releaseSource(source: Int)
    /// A job handed straight to `executor`, which logs each run: run exactly once (C7.3).
    case submit(executor: ExecutorRef)
    /// `backend.prepare(token:) { body }`: task `t` pending until a start (C9.3). One with no
    /// `start` step is started by the harness after the drivers, like a held source.
    case prepare(task: Int, token: Int?, body: BodyAction)
    /// `prepared.tryStart(on:)` on prepared task `t`: the first start runs the body, any later one
    /// returns false and changes nothing (C9.3).
    case start(task: Int, executor: ExecutorRef)
    /// `backend.runAsync(token:) { body }`: an async body whose checkpoint is
    /// `Task.checkCancellation()`, so the token's cancellation must cross into the Swift task (C9.6).
    case runAsync(task: Int, token: Int?, body: BodyAction)
    /// `token.register { }` for user handler `h<handler>` on token `k<token>` (C4.2).
    case registerHandler(handler: Int, token: Int)
    /// Disposes handler `h<handler>`'s registration (C4.2).
    case disposeHandler(handler: Int)
    /// `backend.schedule(after:)` of a job that logs when it fires (C5.4).
    case schedule(microseconds: Int)
    /// A body on the default executor that runs and `wait()`s a body that does the same,
    /// `depth` deep, awaited by the driver (C6.4).
    case nestedWait(depth: Int)
    /// A combinator over `inputs` new sources of reference-typed values, completed by the
    /// driver in reverse order (those in `failing` fail); checks its outcome and that it keeps no
    /// input nor unused value once complete (C5.1-C5.3, C5.5).
    case combineProbed(kind: CombinatorKind, inputs: Int, failing: [Int])
    /// `await task.value` in a new Swift task, which the driver cancels once it is started (C4.7).
    case awaitThenCancel(task: Int)
    /// A chain of `links` `map`s on the inline executor over a new source, which the driver then
    /// completes: the chain must run as a loop, not a recursion (C2.7, at a size that cannot
    /// overflow: the stack's growth from the first link to the last is measured instead).
    case longChain(links: Int)

    /// The task this operation creates, if any.
    public var createdTask: Int? {
        switch self {
        case .makeSource(let t, _), .makeCompleted(let t, _), .run(let t, _, _, _),
             .chain(let t, _, _, _, _, _), .combine(let t, _, _), .delay(let t, _, _), .timeout(let t, _, _),
             .prepare(let t, _, _), .runAsync(let t, _, _):
            return t
        default:
            return nil
        }
    }

    public var description: String {
        func tok(_ token: Int?) -> String { token.map { ", token: k\($0)" } ?? "" }
        switch self {
        case .makeSource(let t, let held):
            return "t\(t) = makeSource()" + (held.map { " held(\($0.rawValue))" } ?? "")
        case .complete(let s, let outcome, let throwing):
            return "t\(s).\(throwing ? "" : "try")\(outcome.rawValue)"
        case .makeCompleted(let t, let outcome):
            return "t\(t) = completed(\(outcome.rawValue))"
        case .run(let t, let executor, let token, let body):
            return "t\(t) = run(on: \(executor)\(tok(token))) { \(body.rawValue) }"
        case .chain(let t, let kind, let antecedent, let executor, let token, let body):
            return "t\(t) = t\(antecedent).\(kind)(on: \(executor)\(tok(token))) { \(body.rawValue) }"
        case .combine(let t, let kind, let inputs):
            return "t\(t) = \(kind.rawValue)([\(inputs.map { "t\($0)" }.joined(separator: ", "))])"
        case .delay(let t, let us, let token):
            return "t\(t) = delay(\(us)us\(tok(token)))"
        case .timeout(let t, let antecedent, let us):
            return "t\(t) = t\(antecedent).timeout(after: \(us)us)"
        case .makeToken(let k, let parent):
            return "k\(k) = makeCancellationSource(\(parent.map { "linkedTo: k\($0)" } ?? ""))"
        case .cancel(let k):
            return "k\(k).cancel()"
        case .cancelAfter(let k, let us):
            return "k\(k).cancel(after: \(us)us)"
        case .wait(let t):
            return "t\(t).wait()"
        case .waitTimeout(let t, let us):
            return "t\(t).wait(timeout: \(us)us)"
        case .await(let t, let cancelled):
            return "await t\(t).value" + (cancelled ? " (cancelled)" : "")
        case .drop(let t):
            return "drop t\(t)"
        case .releaseSource(let s):
            return "release t\(s)'s source"
        case .submit(let executor):
            return "\(executor).execute { job }"
        case .prepare(let t, let token, let body):
            return "t\(t) = prepare(\(token.map { "token: k\($0)" } ?? "")) { \(body.rawValue) }"
        case .start(let t, let executor):
            return "t\(t).start(on: \(executor))"
        case .runAsync(let t, let token, let body):
            return "t\(t) = runAsync(\(token.map { "token: k\($0)" } ?? "")) { \(body.rawValue) }"
        default:
            return extendedDescription
        }
    }
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
