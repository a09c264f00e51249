/// What the reference model says of one task.
enum Expectation: Sendable {
    /// Cannot complete yet (phase one: it depends on a held source).
    case pending
    /// Depends on timing the model does not see (a `cancel(after:)`).
    case unknown
    /// Completes with one of `allowed`, by `rule`.
    case outcomes([Outcome], Rule)

    var allowed: [Outcome]? { if case .outcomes(let a, _) = self { return a } else { return nil } }
}

/// A sequential reference model of CONTRACT.md. Given the program and the observed resolution of
/// each race (setter winners, checkpoint results, which body ran), it computes every task's
/// expected outcome, before the held sources complete (phase one) and after (final). Each kind
/// of operation that makes a task models it (`TaskOperation.expectation`); the oracle holds what
/// they share: the program's tokens and releases, the observations, and how a body ends.
struct Oracle {
    enum World { case phaseOne, final }
    enum TokenState { case never, maybe, definite }

    let program: Program
    let observations: Observations
    /// The step that makes each task.
    let creator: [Int: (step: Int, operation: any TaskOperation)]
    private let tokenParents: [Int: [Int]]
    private let cancelledTokens: Set<Int>
    private let delayedTokens: Set<Int>
    /// Sources the program releases (C8.3).
    let releasedSources: Set<Int>

    init(program: Program, observations: Observations) {
        self.program = program
        self.observations = observations
        var creator: [Int: (Int, any TaskOperation)] = [:]
        var parents: [Int: [Int]] = [:]
        var cancelled: Set<Int> = []
        var delayed: Set<Int> = []
        var released: Set<Int> = []
        for (index, step) in program.steps.enumerated() {
            if let made = step.operation.payload as? any TaskOperation { creator[made.task] = (index, made) }
            let payload = step.operation.payload
            if let source = payload.releasedSource { released.insert(source) }
            if let k = payload.createdToken { parents[k] = payload.tokenParents }
            if let cancel = payload.cancellation {
                if cancel.afterMicroseconds == nil { cancelled.insert(cancel.token) } else { delayed.insert(cancel.token) }
            }
        }
        self.creator = creator
        tokenParents = parents
        cancelledTokens = cancelled
        delayedTokens = delayed
        releasedSources = released
    }

    /// Whether token `k` gets cancelled in the program: through a `cancel()` on it or on a
    /// source it is linked to (definite), or only through a `cancel(after:)` (maybe).
    func tokenState(_ k: Int?) -> TokenState {
        guard let k else { return .never }
        let lineage = tokenLineage(k)
        if lineage.contains(where: cancelledTokens.contains) { return .definite }
        return lineage.contains(where: delayedTokens.contains) ? .maybe : .never
    }

    /// Whether prepared task `t`, made with token `k`, gets cancelled: through its token, or its
    /// own `cancel()` (definite), as a body's token would (C9.3).
    func preparedCancellation(_ t: Int, token k: Int?) -> TokenState {
        if preparedCancels(t).isEmpty { return tokenState(k) }
        return .definite
    }

    /// The steps that call prepared task `t`'s `cancel()`.
    func preparedCancels(_ t: Int) -> [Int] {
        program.steps.indices.filter { program.steps[$0].operation.payload.cancelledPrepared == t }
    }

    /// The tokens `k` is cancelled through: itself and its ancestors (a linked source may have
    /// several parents, C4.6).
    func tokenLineage(_ k: Int) -> [Int] {
        var result = [k]
        var index = 0
        while index < result.count {
            for parent in tokenParents[result[index]] ?? [] where !result.contains(parent) { result.append(parent) }
            index += 1
        }
        return result
    }

    /// Every task's expectation in `world`. The final world reuses phase one's where phase one
    /// already expected an outcome: an outcome never changes (C1.1).
    func evaluate(_ world: World, phaseOne: [Expectation]? = nil) -> [Expectation] {
        var result: [Expectation] = []
        for t in 0..<program.taskCount {
            if world == .final, let earlier = phaseOne?[t], earlier.allowed != nil {
                result.append(earlier)
                continue
            }
            guard let (step, operation) = creator[t] else {
                result.append(.unknown)
                continue
            }
            result.append(operation.expectation(step: step, in: Evaluation(oracle: self, world: world, known: result)))
        }
        return result
    }

    /// What a kind of operation sees while it models its task: the oracle, the world, and the
    /// expectations of the tasks before it.
    struct Evaluation {
        let oracle: Oracle
        let world: World
        let known: [Expectation]

        /// The expectation of an earlier task (`unknown` for a later one).
        func input(_ id: Int) -> Expectation { id < known.count ? known[id] : .unknown }

        /// For a step made inside `host`: pending while the host's task is (the host has not
        /// run, so the step's task does not exist), unknown while it is unknown; `nil` once the
        /// host runs (or for no host, or a job), when the step's own model applies.
        func hostGate(_ host: CallHost?) -> Expectation? {
            guard let t = host?.antecedent else { return nil }
            let before = input(t)
            if oracle.resolved(before, task: t) != nil { return nil }
            if case .pending = before { return .pending }
            return .unknown
        }
    }

    /// The value the model carries forward for `t`: the observed outcome, allowed or not (a
    /// wrong one is `t`'s finding, reported once; what `t` feeds is judged against what it really
    /// got, so one bug does not read as a finding of every task downstream), else the first
    /// allowed one; `nil` if pending or unknown.
    func resolved(_ expectation: Expectation, task t: Int) -> Outcome? {
        guard let allowed = expectation.allowed else { return nil }
        return observations.outcome(t) ?? allowed.first
    }

    /// A task's state as an input (a `flatMap->t<n>`'s inner task, a combinator's input): its
    /// outcome, or pending/unknown.
    enum Inner { case outcome(Outcome), pending, unknown }

    /// The state of the task a body returns: an existing task's, or the outcome of one it makes.
    func inner(_ inner: InnerTask, step: Int, in model: Evaluation) -> Inner {
        if let t = inner.task { return resolvedOrState(model.input(t), task: t) }
        return inner.madeOutcome(step: step).map { .outcome($0) } ?? .unknown
    }

    /// A task taking the outcome of the task its body returned (`runTask`, `prepareTask`, C9.5),
    /// once the body returned it: that task's outcome by `rule`, or pending, or unknown.
    func returnedOutcome(_ returned: InnerTask, step: Int, in model: Evaluation, rule: Rule) -> Expectation {
        switch inner(returned, step: step, in: model) {
        case .outcome(let outcome): return .outcomes([outcome], rule)
        case .pending: return .pending
        case .unknown: return .unknown
        }
    }

    func resolvedOrState(_ expectation: Expectation, task: Int) -> Inner {
        if let outcome = resolved(expectation, task: task) { return .outcome(outcome) }
        if case .pending = expectation { return .pending }
        return .unknown
    }

    /// A released source's task: its winning setter's outcome (every setter comes before the
    /// release), else `abandoned`, whether or not it was held (C8.3).
    func releasedSource(_ t: Int) -> Expectation {
        let winners = (observations.setters[t] ?? []).filter(\.won).compactMap { setterOutcome(step: $0.step) }
        return .outcomes(winners.isEmpty ? [.failure(.abandoned)] : unique(winners), .c8_3)
    }

    /// What a body that ran produces (C3.1, C3.2), using the observed checkpoint result.
    func bodyResult(_ t: Int, step: Int, action: BodyAction) -> Expectation {
        let value = ProgramValues.value(step: step)
        switch action {
        case .returns: return .outcomes([.success(value)], .c3_1)
        case .throwsError: return .outcomes([.failure(.program(value))], .c3_1)
        case .throwsCancellation: return .outcomes([.cancelled], .c3_2)
        case .checkpoint:
            if observations.checkpoints[t]?.first?.threw == true { return .outcomes([.cancelled], .c3_2) }
            return .outcomes([.success(value)], .c4_4)
        }
    }

    /// A task its own body completes (`run`, `runAsync`): the body's result once it ran;
    /// cancelled if its token is and it has not run (by `cancelRule`); else what the body will
    /// do (by `rule`).
    func bodyTask(_ t: Int, step: Int, action: BodyAction, token: Int?, cancelRule: Rule, rule: Rule) -> Expectation {
        if observations.bodies[t] != nil { return bodyResult(t, step: step, action: action) }
        if tokenState(token) != .never { return .outcomes([.cancelled], cancelRule) }
        return .outcomes(bodyResult(t, step: step, action: action).allowed ?? [], rule)
    }

    /// The outcome of the setter at `step`.
    func setterOutcome(step: Int) -> Outcome? {
        guard step < program.steps.count, let setter = program.steps[step].operation.payload.setter else { return nil }
        return Self.outcome(setter.outcome, value: ProgramValues.value(step: step), void: setter.void)
    }

    /// The outcome a setter (or `completed`) gives: `value`'s, or `success(0)`, how `()` is
    /// logged, for a `Void` source.
    static func outcome(_ outcome: SetterOutcome, value: Int, void: Bool = false) -> Outcome {
        switch outcome {
        case .success: return .success(void ? 0 : value)
        case .failure: return .failure(.program(value))
        case .cancel: return .cancelled
        }
    }
}

/// `outcomes` without repeats, in their order.
func unique(_ outcomes: [Outcome]) -> [Outcome] {
    var result: [Outcome] = []
    for outcome in outcomes where !result.contains(outcome) { result.append(outcome) }
    return result
}

extension ContinuationKind {
    /// Whether the body runs on `input` (C3.3).
    func runs(on input: Outcome) -> Bool {
        switch self {
        case .continueWith, .continueWithTask, .finally, .finallyTask, .continueWithKeeping: return true
        case .map, .then, .flatMap, .mapKeeping, .thenKeeping: return input.isSuccess
        case .recover, .recoverTask, .catch: return input.isFailure
        }
    }

    /// What the continuation's task takes once its body returned: its value, the outcome of the
    /// task it returned, its input, its input once the task it returned succeeded (`finallyTask`),
    /// or the task it returned as its value, at once (C2.6: the harness reads whether it is that
    /// very task), or, for `then`, once that task has completed, failed or cancelled as it did.
    enum Settlement { case bodyValue, innerOutcome, input, inputOnceInnerSucceeded, keptTask, keptTaskOnceCompleted }

    var settlement: Settlement {
        switch self {
        case .continueWith, .map, .then, .recover, .catch: return .bodyValue
        case .continueWithTask, .flatMap, .recoverTask: return .innerOutcome
        case .finally: return .input
        case .finallyTask: return .inputOnceInnerSucceeded
        case .continueWithKeeping, .mapKeeping: return .keptTask
        case .thenKeeping: return .keptTaskOnceCompleted
        }
    }
}
