/// A finding: one rule broken, with what the contract expects and what was observed.
public struct Finding: Sendable, Hashable, CustomStringConvertible {
    public var description: String { "\(rule) broken: \(message) (expected: \(expected); observed: \(observed))" }

    public let rule: Rule
    public let message: String
    public let expected: String
    public let observed: String

    public init(_ rule: Rule, _ message: String, expected: String, observed: String) {
        self.rule = rule
        self.message = message
        self.expected = expected
        self.observed = observed
    }
}

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
/// expected outcome, before the held sources complete (phase one) and after (final).
struct Oracle {
    enum World { case phaseOne, final }
    enum TokenState { case never, maybe, definite }

    let program: Program
    let observations: Observations
    /// The step that makes each task.
    let creator: [Int: (step: Int, operation: Operation)]
    private let tokenParent: [Int: Int]
    private let cancelledTokens: Set<Int>
    private let delayedTokens: Set<Int>
    /// Sources the program releases (C8.3).
    private let releasedSources: Set<Int>

    init(program: Program, observations: Observations) {
        self.program = program
        self.observations = observations
        var creator: [Int: (Int, Operation)] = [:]
        var parents: [Int: Int] = [:]
        var cancelled: Set<Int> = []
        var delayed: Set<Int> = []
        var released: Set<Int> = []
        for (index, step) in program.steps.enumerated() {
            if case .releaseSource(let s) = step.operation { released.insert(s) }
            if let t = step.operation.createdTask { creator[t] = (index, step.operation) }
            switch step.operation {
            case .makeToken(let k, let parent?): parents[k] = parent
            case .cancel(let k): cancelled.insert(k)
            case .cancelAfter(let k, _): delayed.insert(k)
            default: break
            }
        }
        self.creator = creator
        tokenParent = parents
        cancelledTokens = cancelled
        delayedTokens = delayed
        releasedSources = released
    }

    /// Whether token `k` gets cancelled in the program: through a `cancel()` on it or on a
    /// source it is linked to (definite), or only through a `cancel(after:)` (maybe).
    func tokenState(_ k: Int?) -> TokenState {
        guard var current = k else { return .never }
        var state = TokenState.never
        var seen: Set<Int> = []
        while seen.insert(current).inserted {
            if cancelledTokens.contains(current) { return .definite }
            if delayedTokens.contains(current) { state = .maybe }
            guard let parent = tokenParent[current] else { break }
            current = parent
        }
        return state
    }

    /// The tokens `k` is cancelled through: itself and its ancestors.
    func tokenLineage(_ k: Int) -> [Int] {
        var result = [k]
        var current = k
        while let parent = tokenParent[current], !result.contains(parent) {
            result.append(parent)
            current = parent
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
            result.append(expect(t, world: world, known: result))
        }
        return result
    }

    /// The value the model carries forward for `t`: the observed outcome if it is allowed,
    /// else the first allowed one; `nil` if pending or unknown.
    private func resolved(_ expectation: Expectation, task t: Int) -> Outcome? {
        guard let allowed = expectation.allowed else { return nil }
        if let observed = observations.outcome(t), allowed.contains(observed) { return observed }
        return allowed.first
    }

    private func expect(_ t: Int, world: World, known: [Expectation]) -> Expectation {
        guard let (step, operation) = creator[t] else { return .unknown }
        func input(_ id: Int) -> Expectation { id < known.count ? known[id] : .unknown }
        switch operation {
        case .makeSource(_, let held):
            if releasedSources.contains(t) { return releasedSource(t) }
            if let held {
                if world == .phaseOne { return .pending }
                return .outcomes([Self.outcome(held, value: ProgramValues.heldValue(step: step))], .c1_1)
            }
            let setters = observations.setters[t] ?? []
            let winners = setters.filter(\.won)
            let chosen = winners.isEmpty ? setters : winners
            let allowed = chosen.compactMap { setterOutcome(step: $0.step) }
            return allowed.isEmpty ? .unknown : .outcomes(unique(allowed), .c1_2)
        case .prepare(_, let token, let action):
            return prepared(t, step: step, world: world, token: token, action: action)
        case .runAsync(_, let token, let action):
            if observations.bodies[t] != nil { return bodyResult(t, step: step, action: action) }
            if tokenState(token) != .never { return .outcomes([.cancelled], .c9_6) }
            return .outcomes(bodyResult(t, step: step, action: action).allowed ?? [], .c9_6)
        case .makeCompleted(_, let outcome):
            return .outcomes([Self.outcome(outcome, value: ProgramValues.value(step: step))], .c1_4)
        case .run(_, _, let token, let action):
            if observations.bodies[t] != nil { return bodyResult(t, step: step, action: action) }
            if tokenState(token) != .never { return .outcomes([.cancelled], .c4_3) }
            return .outcomes(bodyResult(t, step: step, action: action).allowed ?? [], .c2_1)
        case .chain(_, let kind, let antecedent, _, let token, let action):
            let tokenState = self.tokenState(token)
            let before = input(antecedent)
            guard let value = resolved(before, task: antecedent) else {
                if case .pending = before {
                    switch tokenState {
                    case .definite: return .outcomes([.cancelled], .c4_3)
                    case .maybe: return .unknown
                    case .never: return .pending
                    }
                }
                return .unknown
            }
            let innerExpectation: Expectation? = {
                if case .flatMapExisting(let inner) = kind { return input(inner) }
                return nil
            }()
            let innerResolved = innerExpectation.map { resolvedOrState($0, task: kind.existingTask ?? 0) }
            if observations.bodies[t] != nil {
                return afterBody(t, step: step, kind: kind, action: action, input: value, inner: innerResolved)
            }
            if kind.runs(on: value) {
                if tokenState != .never { return .outcomes([.cancelled], .c4_3) }
                // Not run (yet): what the body will do; with no token, checkpoint() returns.
                let action = action == .checkpoint ? .returns : action
                return afterBody(t, step: step, kind: kind, action: action, input: value, inner: innerResolved, rule: .c2_1)
            }
            return .outcomes(tokenState == .never ? [value] : unique([value, .cancelled]), .c3_3)
        case .combine(_, let kind, let inputs):
            return combine(kind, inputs.map { (input($0), $0) })
        case .delay(_, _, let token):
            return .outcomes(tokenState(token) == .never ? [.success(0)] : [.success(0), .cancelled], .c5_4)
        case .timeout(_, let antecedent, let us):
            // Whichever comes first: the task's outcome or the timer; a pending task times out.
            let timedOut = Outcome.failure(.timedOut(microseconds: Int64(us)))
            if let value = resolved(input(antecedent), task: antecedent) { return .outcomes(unique([value, timedOut]), .c5_4) }
            if case .pending = input(antecedent) { return .outcomes([timedOut], .c5_4) }
            return .unknown
        default:
            return .unknown
        }
    }

    /// A prepared task (C9.3): its body's result once it ran; cancelled if its token was
    /// cancelled and the body never ran; pending in phase one while no step starts it.
    private func prepared(_ t: Int, step: Int, world: World, token: Int?, action: BodyAction) -> Expectation {
        // Started by the harness only after the drivers: in phase one the body cannot have run.
        let startedByStep = program.steps.contains { if case .start(t, _) = $0.operation { return true } else { return false } }
        let bodyRan = observations.bodies[t] != nil && (world == .final || startedByStep)
        if bodyRan { return bodyResult(t, step: step, action: action) }
        switch tokenState(token) {
        case .definite: return .outcomes([.cancelled], .c9_3)
        case .maybe: return .unknown
        case .never: break
        }
        if world == .phaseOne, !startedByStep { return .pending }
        // Not run (yet): what the body will do; checkpoint() returns, the token being uncancelled.
        return .outcomes(bodyResult(t, step: step, action: action == .checkpoint ? .returns : action).allowed ?? [], .c9_3)
    }

    /// A released source's task: its winning setter's outcome (every setter comes before the
    /// release), else `abandoned`, whether or not it was held (C8.3).
    private func releasedSource(_ t: Int) -> Expectation {
        let winners = (observations.setters[t] ?? []).filter(\.won).compactMap { setterOutcome(step: $0.step) }
        return .outcomes(winners.isEmpty ? [.failure(.abandoned)] : unique(winners), .c8_3)
    }

    /// The inner task's state for a `flatMap->t<n>`: its outcome, or pending/unknown.
    private enum Inner { case outcome(Outcome), pending, unknown }

    private func resolvedOrState(_ expectation: Expectation, task: Int) -> Inner {
        if let outcome = resolved(expectation, task: task) { return .outcome(outcome) }
        if case .pending = expectation { return .pending }
        return .unknown
    }

    private func afterBody(
        _ t: Int, step: Int, kind: ContinuationKind, action: BodyAction, input: Outcome, inner: Inner?, rule: Rule? = nil
    ) -> Expectation {
        let body = bodyResult(t, step: step, action: action)
        guard case .outcomes(let allowed, _) = body, let outcome = allowed.first, outcome.isSuccess else {
            return body
        }
        switch kind.semantic {
        case .continueWith, .map, .recover, .then, .catch:
            return .outcomes([outcome], rule ?? (kind == .continueWith ? .c3_1 : .c3_3))
        case .finally:
            return .outcomes([input], rule ?? .c3_3)
        case .flatMapNew:
            return .outcomes([.success(ProgramValues.innerValue(step: step))], rule ?? .c2_6)
        case .flatMapExisting:
            switch inner ?? .unknown {
            case .outcome(let innerOutcome): return .outcomes([innerOutcome], rule ?? .c2_6)
            case .pending: return .pending
            case .unknown: return .unknown
            }
        }
    }

    /// What a body that ran produces (C3.1, C3.2), using the observed checkpoint result.
    private func bodyResult(_ t: Int, step: Int, action: BodyAction) -> Expectation {
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

    private func combine(_ kind: CombinatorKind, _ inputs: [(Expectation, Int)]) -> Expectation {
        let states = inputs.map { resolvedOrState($0.0, task: $0.1) }
        let outcomes = states.compactMap { if case .outcome(let o) = $0 { return o } else { return nil } }
        let anyUnknown = states.contains { if case .unknown = $0 { return true } else { return false } }
        let anyPending = outcomes.count + (anyUnknown ? 1 : 0) < states.count
        switch kind {
        case .whenAll:
            if inputs.isEmpty { return .outcomes([.values([])], .c5_1) }
            let failing = outcomes.filter { !$0.isSuccess }
            if !failing.isEmpty && !anyUnknown { return .outcomes(unique(failing), .c5_1) }
            if anyUnknown { return .unknown }
            if anyPending { return .pending }
            return .outcomes([.values(outcomes.compactMap { if case .success(let v) = $0 { return v } else { return nil } })], .c5_1)
        case .whenAllSettled:
            if anyUnknown { return .unknown }
            if anyPending { return .pending }
            return .outcomes([.settled(outcomes)], .c5_2)
        case .race:
            if inputs.isEmpty { return .outcomes([.failure(.emptyInput("race"))], .c5_3) }
            if anyUnknown { return .unknown }
            if outcomes.isEmpty { return .pending }
            return .outcomes(unique(outcomes), .c5_3)
        case .any:
            if inputs.isEmpty { return .outcomes([.failure(.emptyInput("any"))], .c5_3) }
            let successes = outcomes.filter(\.isSuccess)
            if !successes.isEmpty && !anyUnknown { return .outcomes(unique(successes), .c5_3) }
            if anyUnknown { return .unknown }
            if anyPending { return .pending }
            return .outcomes([.failure(.aggregate(outcomes.compactMap(\.anyError)))], .c5_3)
        }
    }

    /// The outcome of the setter at `step`.
    func setterOutcome(step: Int) -> Outcome? {
        guard step < program.steps.count, case .complete(_, let outcome, _) = program.steps[step].operation else { return nil }
        return Self.outcome(outcome, value: ProgramValues.value(step: step))
    }

    static func outcome(_ outcome: SetterOutcome, value: Int) -> Outcome {
        switch outcome {
        case .success: return .success(value)
        case .failure: return .failure(.program(value))
        case .cancel: return .cancelled
        }
    }

    private func unique(_ outcomes: [Outcome]) -> [Outcome] {
        var result: [Outcome] = []
        for outcome in outcomes where !result.contains(outcome) { result.append(outcome) }
        return result
    }
}

extension ContinuationKind {
    /// Whether the body runs on `input` (C3.3).
    func runs(on input: Outcome) -> Bool {
        switch self {
        case .continueWith, .finally: return true
        case .map, .then, .flatMapExisting, .flatMapNew: return input.isSuccess
        case .recover, .catch: return input.isFailure
        }
    }

    /// The kind an alias stands for: `then` is `map`, `catch` is `recover`.
    var semantic: ContinuationKind {
        switch self {
        case .then: return .map
        case .catch: return .recover
        default: return self
        }
    }

    var existingTask: Int? {
        if case .flatMapExisting(let t) = self { return t }
        return nil
    }
}
