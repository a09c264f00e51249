/// The facts a step states of itself, the vocabulary the run, the checks, the hang diagnosis
/// and the shrinker share: the ids it takes (`Use`), how it may block its driver (`Blocking`),
/// the work it makes outside the controlled thread (`OutsideWork`), what the task it makes waits
/// for (`Dependence`), the body it makes (`BodySpec`), and the facts `OperationPayload` states
/// beyond those (the source it sets, the timer that completes its task, ...: their defaults are in
/// `Operations/OperationPayload+Facts.swift`).

/// The body a step makes (`run`, a continuation, a prepared task, an async body): where it
/// must run, what may cancel it, and, for a continuation, its antecedent and kind. The checkers
/// of bodies read it (C2.1 to C2.5, C3.3, C4.3, C4.4, C7.2, C7.3, C9.7), not the kinds.
struct BodySpec {
    enum Placement {
        /// On this executor.
        case on(ExecutorRef)
        /// On the executor of the start that won (a prepared task); `fallback` for the harness's start.
        case startedBy(fallback: ExecutorRef)
        /// In a Swift task (`runAsync`): no executor of the program.
        case swiftTask
    }

    let task: Int
    let placement: Placement
    /// The program token the body observes (its lineage's cancels cancel it).
    let token: Int?
    /// A continuation's antecedent and kind: which outcomes run it, and what input it sees.
    let continuation: (antecedent: Int, kind: ContinuationKind)?
    /// Where it is registered from, for a continuation.
    let host: CallHost?
    /// The body is its task's own (`task` is `running` while it runs, C1.5); `false` for an
    /// observer, whose task is the harness's echo.
    let runsTask: Bool
    /// Registered on the actor pinned to its serial executor: it must run there, isolated (C9.10).
    let pinned: Bool

    init(
        task: Int, executor placement: Placement, token: Int?, continuation: (antecedent: Int, kind: ContinuationKind)? = nil,
        host: CallHost? = nil, runsTask: Bool = true, pinned: Bool = false
    ) {
        self.task = task
        self.placement = placement
        self.token = token
        self.continuation = continuation
        self.host = host
        self.runsTask = runsTask
        self.pinned = pinned
    }

    /// The executor the body runs on, if it is one of the program's.
    var executor: ExecutorRef? { if case .on(let ref) = placement { return ref } else { return nil } }
}

/// How a step takes an id.
enum Use: Hashable {
    /// Task `t` (counts as a use before its drop).
    case task(Int)
    /// Cancellation source `k`.
    case token(Int)
    /// The completion source of task `t` (counts as a setter before its release, C8.3).
    case source(Int)
    /// The prepared task `t` (C9.3).
    case prepared(Int)
    /// Task `t`, once every earlier step that uses it has taken it (a drop).
    case lastUse(Int)
    /// The source of task `t`, once every earlier setter has taken it (a release, C8.3).
    case lastSetter(Int)

    /// The task id it names, if not a token.
    var task: Int? {
        switch self {
        case .task(let t), .source(let t), .prepared(let t), .lastUse(let t), .lastSetter(let t): return t
        case .token: return nil
        }
    }
}

/// How a step may block its driver.
enum Blocking: Hashable {
    /// It only calls the backend, which must return.
    case never
    /// A blocking `wait()` on task `t`: only generated once every source it depends on has a
    /// completing step earlier, and run by controlled mode only once `t` completed.
    case untilCompleted(Int)
    /// `wait(timeout:)` on task `t`: it must return by its deadline.
    case untilTimeout(Int)
    /// A drop, waiting for the earlier steps that use its task.
    case untilEarlierUses
    /// `wait()` on the `WorkGroup` of task `t` (`MakeGroup`): only generated while every task joined
    /// so far completes without the harness, and run by controlled mode only once none is pending.
    case untilGroupIdle(Int)
}

/// Work a step makes outside the controlled thread, and how long a controlled run waits for it.
enum OutsideWork: Hashable {
    /// None.
    case none
    /// A timer or a Swift task that completes task `task` within `within` of the step's start
    /// (plus the timing slack).
    case completes(task: Int, within: Duration)
    /// A Swift task awaiting task `task`: in flight until it returned, within a second and the
    /// slack, while the task is completed or the await `cancelled` (an await of a pending task
    /// waits for the task, not for outside work).
    case awaits(task: Int, cancelled: Bool)
    /// A timer of the harness's list (`HandlersAndTimers`): in flight until it fired, or its
    /// slack after it was due.
    case timer
    /// Threads of the backend's own that the step itself waits for: done when it returns.
    case duringStep
}

/// What a task waits for before it can complete.
enum Dependence: Hashable {
    /// Nothing of the program: its body, timer or value completes it.
    case nothing
    /// Its source's setters (`held`: the harness completes it after the drivers).
    case source(held: Bool)
    /// A start (a prepared task, C9.3); none by a step: the harness's after the drivers.
    case start
    /// The outcomes of these tasks (a continuation's antecedent and inner task, a combinator's inputs).
    case tasks([Int])
}

/// Task and token ids mapped, for the shrinker.
struct Renumbering {
    let task: (Int) -> Int
    let token: (Int) -> Int
}

/// A setter on a source (C1.2, C1.3).
struct SourceSetter {
    /// The task of the source it sets.
    let source: Int
    /// The setter throws when it loses (`complete`, `succeed`, ...), not `try...`.
    let throwing: Bool
    let outcome: SetterOutcome
    /// A `Void` source's setter (its success is logged as `success(0)`).
    let void: Bool
}

/// A source the harness completes after the drivers, with `outcome` (phase two).
struct HeldSource {
    let task: Int
    let outcome: SetterOutcome
}

/// A `cancel()` (`afterMicroseconds` nil) or `cancel(after:)` on token `token` (C4.1, C4.6).
struct TokenCancel {
    let token: Int
    let afterMicroseconds: Int?
}

/// Handler `handler` registered on token `token` (C4.2).
struct HandlerRegistration {
    let handler: Int
    let token: Int
}

/// A timer the harness arms and logs as it fires (`timerFired` of the step): due `microseconds`
/// after the call, by `rule`. With `token`, it cancels that token, and tells when it fired only
/// when nothing else cancels the token's lineage.
struct ProbedTimer {
    let rule: Rule
    let microseconds: Int
    let token: Int?
}

/// A task a timer completes (C5.4).
enum TimedCompletion {
    /// Task `task` succeeds once `microseconds` elapsed (with `()`, logged `success(0)`), or is
    /// cancelled with its token (C4.3).
    case elapses(task: Int, microseconds: Int, token: Int?)
    /// Task `task` takes its antecedent's outcome, or `timedOut` after `microseconds`,
    /// whichever comes first.
    case racesAntecedent(task: Int, antecedent: Int, microseconds: Int)

    var task: Int {
        switch self {
        case .elapses(let task, _, _), .racesAntecedent(let task, _, _): return task
        }
    }

    var microseconds: Int {
        switch self {
        case .elapses(_, let us, _), .racesAntecedent(_, _, let us): return us
        }
    }

    var token: Int? { if case .elapses(_, _, let token) = self { return token } else { return nil } }

    var antecedent: Int? { if case .racesAntecedent(_, let antecedent, _) = self { return antecedent } else { return nil } }

    /// The outcome the timer gives.
    var timedOutcome: Outcome {
        switch self {
        case .elapses: return .success(0)
        case .racesAntecedent(_, _, let us): return .failure(.timedOut(microseconds: Int64(us)))
        }
    }
}

/// A timer task `task` waits for before it completes, due `microseconds` after it is set: still
/// pending long after, while `token` (if any) is never cancelled, the timer never fired (C5.4).
struct AwaitedTimer {
    let task: Int
    let microseconds: Int
    let token: Int?
}

/// A driver's `wait()` (`timeoutMicroseconds` nil) or `wait(timeout:)`; `get`: `get()`, which
/// throws the failure (C6.1, C6.2).
struct WaitForm {
    let timeoutMicroseconds: Int?
    let get: Bool
}

/// Task `task` joined to, or the `idle()` of, the work group of task `group` (C9.11).
struct GroupMember {
    let group: Int
    let task: Int
}

/// A start of prepared task `task` on `executor` (C9.3).
struct PreparedStart {
    let task: Int
    let executor: ExecutorRef
}

/// What a probe step's log shows: the rules its check exercised (each once per check), and
/// what broke.
struct ProbeJudgement {
    var exercised: [Rule]
    var findings: [Finding] = []
}

extension ProbeJudgement {
    /// A probe of stack growth (C2.7): a recursion deeper than `depth` bytes from the first call
    /// to the last is `recursed` (given the growth in KiB); else a result other than
    /// `success(expected)` is `wrong` (given what was observed), whose rule is exercised too.
    static func stackProbe(
        growth: Int?, depth: Int, result: Outcome?, expected: Int, recursed: (Int) -> Finding, wrong: (String) -> Finding
    ) -> ProbeJudgement {
        var judgement = ProbeJudgement(exercised: [.c2_7])
        if let growth, growth > depth {
            judgement.findings.append(recursed(growth / 1024))
        } else if result != .success(expected) {
            let finding = wrong(result.map { "\($0)" } ?? "not completed in time")
            if finding.rule != .c2_7 { judgement.exercised.append(finding.rule) }
            judgement.findings.append(finding)
        }
        return judgement
    }
}
