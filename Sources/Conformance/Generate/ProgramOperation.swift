/// One operation of a program: a case per kind, each carrying its payload, a struct of its own
/// in `Operations/` that holds everything the harness knows of that kind (its text, the ids it
/// makes and takes, how it is generated, renumbered, scheduled, run, modelled and diagnosed in
/// a hang, and the facts the checks ask of it). The switches below are the only ones over every
/// kind, and nothing outside `Operations/` asks a step's kind: adding a kind is a file in
/// `Operations/` plus a case here, in `OperationKind` and in these two switches, and the
/// compiler asks for every property without a default (`OperationPayload`).
public enum ProgramOperation: Sendable, Hashable, CustomStringConvertible {
    case makeSource(MakeSource)
    case complete(Complete)
    case makeCompleted(MakeCompleted)
    case run(Run)
    case chain(Chain)
    case combine(Combine)
    case makeToken(MakeToken)
    case cancel(Cancel)
    case wait(Wait)
    case await(Await)
    case drop(Drop)
    case delay(Delay)
    case timeout(Timeout)
    case releaseSource(ReleaseSource)
    case submit(Submit)
    case prepare(Prepare)
    case start(Start)
    case runAsync(RunAsync)
    case registerHandler(RegisterHandler)
    case disposeHandler(DisposeHandler)
    case schedule(Schedule)
    case nestedWait(NestedWait)
    case combineProbed(CombineProbed)
    case awaitThenCancel(AwaitThenCancel)
    case longChain(LongChain)
    case observe(Observe)
    case inspect(Inspect)
    case inspectToken(InspectToken)
    case tryStart(TryStart)
    case cancelPrepared(CancelPrepared)
    case retry(Retry)
    case factory(FactoryCall)
    case asyncLoop(AsyncLoop)
    case burst(Burst)
    case makeGroup(MakeGroup)
    case joinGroup(JoinGroup)
    case groupIdle(GroupIdle)
    case waitGroup(WaitGroup)
    case raceRounds(RaceRounds)
    case mapKeepingType(MapKeepingType)
    case serialHandOff(SerialHandOff)

    /// The payload: what every stage asks of the operation.
    var payload: any OperationPayload {
        switch self {
        case .makeSource(let p): return p
        case .complete(let p): return p
        case .makeCompleted(let p): return p
        case .run(let p): return p
        case .chain(let p): return p
        case .combine(let p): return p
        case .makeToken(let p): return p
        case .cancel(let p): return p
        case .wait(let p): return p
        case .await(let p): return p
        case .drop(let p): return p
        case .delay(let p): return p
        case .timeout(let p): return p
        case .releaseSource(let p): return p
        case .submit(let p): return p
        case .prepare(let p): return p
        case .start(let p): return p
        case .runAsync(let p): return p
        case .registerHandler(let p): return p
        case .disposeHandler(let p): return p
        case .schedule(let p): return p
        case .nestedWait(let p): return p
        case .combineProbed(let p): return p
        case .awaitThenCancel(let p): return p
        case .longChain(let p): return p
        case .observe(let p): return p
        case .inspect(let p): return p
        case .inspectToken(let p): return p
        case .tryStart(let p): return p
        case .cancelPrepared(let p): return p
        case .retry(let p): return p
        case .factory(let p): return p
        case .asyncLoop(let p): return p
        case .burst(let p): return p
        case .makeGroup(let p): return p
        case .joinGroup(let p): return p
        case .groupIdle(let p): return p
        case .waitGroup(let p): return p
        case .raceRounds(let p): return p
        case .mapKeepingType(let p): return p
        case .serialHandOff(let p): return p
        }
    }

    /// The kind of operation (a key for counts per kind).
    public var kind: OperationKind { type(of: payload).kind }

    public var description: String { payload.description }

    /// The task this operation creates, if any.
    public var createdTask: Int? { payload.createdTask }

    /// The cancellation source this operation creates, if any.
    public var createdToken: Int? { payload.createdToken }

    /// The ids this operation takes, each with how it takes it.
    var uses: [Use] { payload.uses }

    /// The task ids this operation takes as tasks (not the one it makes; not a source's).
    var usedTasks: [Int] { uses.compactMap { if case .task(let t) = $0 { return t } else { return nil } } }

    /// The cancellation sources this operation takes.
    var usedTokens: [Int] { uses.compactMap { if case .token(let k) = $0 { return k } else { return nil } } }

    /// Whether the operation never waits for another thread, whatever the backend: it may run
    /// while a driver is parked mid-step, and park at schedule points itself.
    var neverWaits: Bool { payload.neverWaits }

    /// Whether it makes work the controlled thread does not run (timers, Swift tasks, bodies
    /// blocked on the backend's own executor): controlled programs do not generate it.
    var makesOutsideWork: Bool { payload.outsideWork != .none }

    /// The same operation with task and token ids mapped.
    func renumbered(_ ids: Renumbering) -> ProgramOperation { payload.renumbered(ids).operation }
}

/// The kinds of operation, in the order the generator draws them: its weights are listed in
/// this order, so a new kind goes last, with weight 0 and a stream of its own
/// (`OperationPayload.ownStream`), or every recorded seed gives another program.
public enum OperationKind: String, Sendable, Hashable, CaseIterable {
    case makeSource, complete, makeCompleted, run, chain, combine, makeToken, cancel, wait, await, drop, delay,
        timeout, releaseSource, submit, prepare, start, runAsync, registerHandler, disposeHandler, schedule,
        nestedWait, combineProbed, awaitThenCancel, longChain, observe, inspect, inspectToken, tryStart, cancelPrepared, retry,
        factory, asyncLoop, burst, makeGroup, joinGroup, groupIdle, waitGroup, raceRounds, mapKeepingType,
        serialHandOff

    /// The case of `ProgramOperation` that carries this kind's payload: the one place that pairs
    /// a kind with its payload type, from which a payload's `kind` and `operation` follow.
    var payloadCase: PayloadCase {
        guard let payloadCase = Self.payloadCases[self] else {
            preconditionFailure("OperationKind.payloadCase: \(self) has none (OperationKind.makePayloadCase)")
        }
        return payloadCase
    }

    /// Every kind's case, made once: the generator asks for a kind's payload type at every draw.
    private static let payloadCases = Dictionary(uniqueKeysWithValues: allCases.map { ($0, $0.makePayloadCase()) })

    private func makePayloadCase() -> PayloadCase {
        switch self {
        case .makeSource: return PayloadCase(ProgramOperation.makeSource)
        case .complete: return PayloadCase(ProgramOperation.complete)
        case .makeCompleted: return PayloadCase(ProgramOperation.makeCompleted)
        case .run: return PayloadCase(ProgramOperation.run)
        case .chain: return PayloadCase(ProgramOperation.chain)
        case .combine: return PayloadCase(ProgramOperation.combine)
        case .makeToken: return PayloadCase(ProgramOperation.makeToken)
        case .cancel: return PayloadCase(ProgramOperation.cancel)
        case .wait: return PayloadCase(ProgramOperation.wait)
        case .await: return PayloadCase(ProgramOperation.await)
        case .drop: return PayloadCase(ProgramOperation.drop)
        case .delay: return PayloadCase(ProgramOperation.delay)
        case .timeout: return PayloadCase(ProgramOperation.timeout)
        case .releaseSource: return PayloadCase(ProgramOperation.releaseSource)
        case .submit: return PayloadCase(ProgramOperation.submit)
        case .prepare: return PayloadCase(ProgramOperation.prepare)
        case .start: return PayloadCase(ProgramOperation.start)
        case .runAsync: return PayloadCase(ProgramOperation.runAsync)
        case .registerHandler: return PayloadCase(ProgramOperation.registerHandler)
        case .disposeHandler: return PayloadCase(ProgramOperation.disposeHandler)
        case .schedule: return PayloadCase(ProgramOperation.schedule)
        case .nestedWait: return PayloadCase(ProgramOperation.nestedWait)
        case .combineProbed: return PayloadCase(ProgramOperation.combineProbed)
        case .awaitThenCancel: return PayloadCase(ProgramOperation.awaitThenCancel)
        case .longChain: return PayloadCase(ProgramOperation.longChain)
        case .observe: return PayloadCase(ProgramOperation.observe)
        case .inspect: return PayloadCase(ProgramOperation.inspect)
        case .inspectToken: return PayloadCase(ProgramOperation.inspectToken)
        case .tryStart: return PayloadCase(ProgramOperation.tryStart)
        case .cancelPrepared: return PayloadCase(ProgramOperation.cancelPrepared)
        case .retry: return PayloadCase(ProgramOperation.retry)
        case .factory: return PayloadCase(ProgramOperation.factory)
        case .asyncLoop: return PayloadCase(ProgramOperation.asyncLoop)
        case .burst: return PayloadCase(ProgramOperation.burst)
        case .makeGroup: return PayloadCase(ProgramOperation.makeGroup)
        case .joinGroup: return PayloadCase(ProgramOperation.joinGroup)
        case .groupIdle: return PayloadCase(ProgramOperation.groupIdle)
        case .waitGroup: return PayloadCase(ProgramOperation.waitGroup)
        case .raceRounds: return PayloadCase(ProgramOperation.raceRounds)
        case .mapKeepingType: return PayloadCase(ProgramOperation.mapKeepingType)
        case .serialHandOff: return PayloadCase(ProgramOperation.serialHandOff)
        }
    }

    /// The payload type of this kind.
    var payloadType: any OperationPayload.Type { payloadCase.type }

    /// The kind of each payload type: `payloadCase` read backwards.
    fileprivate static let byPayloadType: [ObjectIdentifier: OperationKind] = Dictionary(
        uniqueKeysWithValues: allCases.map { (ObjectIdentifier($0.payloadType), $0) })
}

/// A case of `ProgramOperation`: the type of the payload it carries, and the case made of such a
/// payload (`OperationKind.payloadCase`).
struct PayloadCase: Sendable {
    let type: any OperationPayload.Type
    /// The case carrying `payload`, which must be of `type`.
    let embed: @Sendable (any OperationPayload) -> ProgramOperation

    /// The case `make` makes, `ProgramOperation.nestedWait` for instance.
    init<P: OperationPayload>(_ make: @escaping @Sendable (P) -> ProgramOperation) {
        type = P.self
        embed = { payload in
            guard let payload = payload as? P else {
                preconditionFailure("PayloadCase(\(P.self)).embed: given a \(Swift.type(of: payload)) payload")
            }
            return make(payload)
        }
    }
}

/// Everything the harness knows of one kind of operation. The requirements up to `perform`
/// have no default, but for four whose common answer is "none" (`createdToken`, `outsideWork`,
/// `blocking`, `bodySpec`: the extension below): a new kind answers each, or does not compile;
/// the facts after `perform` have defaults for the kinds that state none
/// (`OperationPayload+Facts.swift`; the facts' types are in `Vocabulary/OperationFacts.swift`).
/// A kind that makes a task conforms to `TaskOperation`, one that makes none to
/// `TasklessOperation` (which answers the task questions with "none").
protocol OperationPayload: Sendable, Hashable, CustomStringConvertible {
    // MARK: Generate

    /// How likely the generator draws this kind next (0: not now), from what the program has so far.
    static func weight(in program: ProgramBuilder) -> Int
    /// Adds a step (or a few) of this kind; may add none when the draw finds nothing to use.
    static func generate(into program: inout ProgramBuilder)
    /// A kind added after programs were first recorded draws from a stream of its own, after
    /// every other step (its `weight` is 0), so that adding it changes no line of an earlier
    /// program; nil (the default): the main stream, by `weight`.
    static var ownStream: OwnStream? { get }

    // MARK: Ids

    /// The ids the step takes, each with how (`Slots` waits for them, the shrinker keeps the
    /// step only while they exist, the hang diagnosis names the step that makes them).
    var uses: [Use] { get }
    /// The cancellation source the step makes, if any.
    var createdToken: Int? { get }
    /// The task the step makes, if any (`TaskOperation`'s `task`; none for a `TasklessOperation`).
    var createdTask: Int? { get }
    /// The same payload with task and token ids mapped (the shrinker's renumbering).
    func renumbered(_ ids: Renumbering) -> Self

    // MARK: Text

    /// The payload back from its `description` (nil: the text is not this kind's), so that a
    /// printed program reads back (`Program(parsing:)`): `parse(description[...]) == self`
    /// for every payload (`ProgramTextTests`).
    static func parse(_ text: Substring) -> Self?

    // MARK: Schedule

    /// Never waits for another thread, whatever the backend (controlled mode: it may park at
    /// schedule points, and run while another driver is parked).
    var neverWaits: Bool { get }
    /// The work it makes that the controlled thread does not run (timers, Swift tasks, bodies
    /// blocked on the backend's own executor), and how long it may stay in flight. Controlled
    /// programs do not generate such steps (`ProgramGenerator.usesOutsideWork`).
    var outsideWork: OutsideWork { get }
    /// How the step may block its driver: what controlled mode waits for before it runs the
    /// step, and what the hang diagnosis makes of a driver stuck in it.
    var blocking: Blocking { get }
    /// The step registers a continuation or completes a task: no body for a default or serial
    /// executor may run inside it (C2.3).
    var registersOrCompletes: Bool { get }

    // MARK: Coverage

    /// The entry points of TaskAPI the step calls (for the entry point coverage table; see
    /// `EntryPoint`): the calls `perform` makes, the executors and tokens it takes included.
    var entryPoints: [EntryPoint] { get }

    // MARK: Check

    /// The body the step makes, logged through `ProgramExecution.body`, if any: what the
    /// checkers of bodies judge it by (its executor, token, antecedent, host).
    var bodySpec: BodySpec? { get }

    // MARK: Run

    /// Does the step on the calling thread (its driver) and logs what happens; judges nothing.
    func perform(in execution: ProgramExecution, step: Int)

    // MARK: Facts (defaults in `OperationPayload+Facts.swift`: most kinds state none)

    /// Where the step's call is made from (a continuation or a job; nil: its driver).
    var host: CallHost? { get }
    /// The setter the step calls on a source, if any.
    var setter: SourceSetter? { get }
    /// The source whose last reference the step releases (C8.3), if any.
    var releasedSource: Int? { get }
    /// A source the step makes and the harness completes after the drivers, if any.
    var heldSource: HeldSource? { get }
    /// The step with the source it makes held, when no task of `set` is that source's (the
    /// repair of a program whose setters were removed); nil: nothing to hold.
    func holdingSource(unlessSetIn set: Set<Int>) -> ProgramOperation?
    /// The sources the token the step makes (`createdToken`) is linked to.
    var tokenParents: [Int] { get }
    /// The cancellation the step requests, if any.
    var cancellation: TokenCancel? { get }
    /// The cancellation handler the step registers, if any.
    var registeredHandler: HandlerRegistration? { get }
    /// The handler the step disposes, if any.
    var disposedHandler: Int? { get }
    /// The timer the step arms and the harness logs as it fires, if any (`TimingChecks`).
    var probedTimer: ProbedTimer? { get }
    /// How a timer completes the task the step makes, if one does (C5.4).
    var timedCompletion: TimedCompletion? { get }
    /// The timer the task the step makes waits for (the hang diagnosis: still pending long after
    /// it was due, the timer never fired); the timed completion's by default.
    var awaitedTimer: AwaitedTimer? { get }
    /// The driver's `wait()` or `wait(timeout:)` the step makes, if any.
    var waitForm: WaitForm? { get }
    /// The step's await is cancelled while it waits (C4.7).
    var awaitCancels: Bool { get }
    /// The task the step joins to a work group, if any.
    var joinedGroup: GroupMember? { get }
    /// The `idle()` task the step asks a work group for, if any.
    var idledGroup: GroupMember? { get }
    /// The start of a prepared task the step makes, if any.
    var startedPrepared: PreparedStart? { get }
    /// The prepared task whose own `cancel()` the step calls, if any.
    var cancelledPrepared: Int? { get }
    /// The task made from a source that the step's `tryStart()` starts, if any (C1.5).
    var startedSource: Int? { get }
    /// The executor the step hands a bare job to (logged as `jobRan`), if any.
    var submittedJob: ExecutorRef? { get }
    /// How many jobs the step hands over at once, each logged as `burstJobRan`, if it does.
    var burstJobs: Int? { get }
    /// A probe step's check of what it logged (`event`, one of its own): nil for another event.
    func judgeProbe(_ event: EventKind, step: Int, slack: Duration) -> ProbeJudgement?
    /// Smaller forms of the step, for the shrinker (a combinator with an input fewer, a task
    /// handed the backend plain rather than foreign).
    var smallerForms: [ProgramOperation] { get }
    /// The combinator inputs the step takes (the shrinker prefers fewer).
    var inputCount: Int { get }
    /// The step with some of the tasks it hands the backend wrapped in a `ForeignTask` (a
    /// combinator's inputs, the task a continuation's or `runTask`'s body returns: C2.6, C5.1-C5.3,
    /// contract 1.4), as the foreign stream `rng` draws it (`ForeignStream`); nil: it hands the
    /// backend no such task, or the draw left it as it is. Drawing nothing from `rng` for a step
    /// that takes none keeps the stream's draws for the next one.
    func markedForeign(_ rng: inout SplitMix64) -> ProgramOperation?
    /// The tasks the step hands the backend wrapped in a `ForeignTask` (the shrinker prefers fewer).
    var foreignCount: Int { get }
}

/// The common answers: no token made, no work outside the controlled thread, never blocks its
/// driver, no body.
extension OperationPayload {
    static var ownStream: OwnStream? { nil }
    var createdToken: Int? { nil }
    var outsideWork: OutsideWork { .none }
    var blocking: Blocking { .never }
    var bodySpec: BodySpec? { nil }
}

/// What the kinds' table (`OperationKind.payloadCase`) says of a payload: no kind states them again.
extension OperationPayload {
    /// The kind, hence the generation order.
    static var kind: OperationKind {
        guard let kind = OperationKind.byPayloadType[ObjectIdentifier(self)] else {
            preconditionFailure("OperationPayload.kind: \(self) is no kind's payload (OperationKind.payloadCase)")
        }
        return kind
    }

    /// The payload as an operation: its kind's case.
    var operation: ProgramOperation { Self.kind.payloadCase.embed(self) }
}

/// An operation that makes task `task`: the model's expectation for it and what it waits for.
protocol TaskOperation: OperationPayload {
    var task: Int { get }
    /// What the task waits for before it can complete (the hang diagnosis follows it upstream;
    /// the shrinker's repair keeps blocking waits only on tasks whose sources complete earlier).
    var dependence: Dependence { get }
    /// The rule a completion before the held sources completed breaks, when the model expects
    /// the task pending in phase one.
    var pendingRule: Rule { get }
    /// The model's expectation for the task, made at step `step`.
    func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation
    /// The task is made from a source nothing but a `tryStart` step starts, so it goes from
    /// pending straight to completed, never `running` (C1.5); `false` for a task with a body.
    var madeFromSource: Bool { get }
}

/// An operation that makes no task.
protocol TasklessOperation: OperationPayload {}

extension TaskOperation {
    var createdTask: Int? { task }
}

extension TasklessOperation {
    var createdTask: Int? { nil }
}
