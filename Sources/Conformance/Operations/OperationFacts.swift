/// The facts a step states about itself, beyond its ids and schedule (`OperationPayload`'s
/// "Facts"): what it does to sources, tokens, handlers, prepared tasks, groups and executors,
/// the timers it sets, the waits it makes, how a probe step's log is judged and how the shrinker
/// makes it smaller. The checks, the hang diagnosis, the run and the shrinker ask these, never
/// the kind: a new kind that sets a timer says so here and gets the timing checks and the hang
/// diagnosis of a timer. Most kinds state none of them, hence the defaults below.
extension OperationPayload {
    var host: CallHost? { nil }
    var setter: SourceSetter? { nil }
    var releasedSource: Int? { nil }
    var heldSource: HeldSource? { nil }
    func holdingSource(unlessSetIn set: Set<Int>) -> ProgramOperation? { nil }
    var tokenParents: [Int] { [] }
    var cancellation: TokenCancel? { nil }
    var registeredHandler: HandlerRegistration? { nil }
    var disposedHandler: Int? { nil }
    var probedTimer: ProbedTimer? { nil }
    var timedCompletion: TimedCompletion? { nil }
    /// A timed completion's timer, by default.
    var awaitedTimer: AwaitedTimer? {
        timedCompletion.map { AwaitedTimer(task: $0.task, microseconds: $0.microseconds, token: $0.token) }
    }
    var waitForm: WaitForm? { nil }
    var awaitCancels: Bool { false }
    var joinedGroup: GroupMember? { nil }
    var idledGroup: GroupMember? { nil }
    var startedPrepared: PreparedStart? { nil }
    var cancelledPrepared: Int? { nil }
    var startedSource: Int? { nil }
    var submittedJob: ExecutorRef? { nil }
    var burstJobs: Int? { nil }
    func judgeProbe(_ event: EventKind, step: Int, slack: Duration) -> ProbeJudgement? { nil }
    var smallerForms: [ProgramOperation] { [] }
    var inputCount: Int { 0 }
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
