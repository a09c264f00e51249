import Synchronization
import TaskAPI

/// One registration on a task: where to run, and what.
struct Registration<T: Sendable>: Sendable {
    /// `nil` for a waker of `wait()` or `value`: called directly by the actor, never through an
    /// executor; it only signals a thread or resumes a Swift continuation.
    let executor: (any TaskAPI.Executor)?
    let body: @Sendable (Completion<T>) -> Void
}

/// The actors backend's task, which is also its own completion source.
///
/// The continuation list lives in the actor, in a `TaskStateMachine` only ever touched with the
/// actor's isolation. The actor's executor is its `Mailbox`: nonisolated entry points
/// (`whenComplete`, `tryComplete`, `wait`, `value`) push a message and return; messages run in
/// push order (C2.4), on the pushing thread if the actor is idle, else on the thread already
/// running it. An `await` into the actor queues in the same FIFO.
///
/// Kept outside the actor, because the contract needs synchronous answers:
/// - `phase`: an atomic word deciding the one winner of `tryComplete` (C1.2) and answering
///   `status` (C1.5) and `tryStart`;
/// - `outcome`: the completion, written once by the winner before `phase` says completed, so
///   `completion`, `wait()` and `value` can read it without a hop.
actor ActorTask<T: Sendable>: AsyncTask, CompletionSource {
    typealias Success = T

    /// Bit 0: the body started. Bits 1-2: 0 not completed, 1 a winner is storing the outcome,
    /// 2 completed, 3 completed and the actor has handed off every continuation ("settled").
    private nonisolated let phase: Atomic<UInt8>
    private static var started: UInt8 { 1 }
    private static var completing: UInt8 { 2 }
    private static var completed: UInt8 { 4 }
    private static var settled: UInt8 { 6 }

    // nonisolated(unsafe): written exactly once, by the `tryComplete` that won `phase`, before it
    // stores `completed` into `phase` (releasing); read only after loading `completed` or
    // `settled` from `phase` (acquiring), or by the actor after the message carrying it.
    private nonisolated(unsafe) var outcome: Completion<T>?

    private var machine: TaskStateMachine<T, Registration<T>>
    /// Hand-offs queued on a thread's trampoline and not yet run, and the registrations held
    /// back behind them, in order, so that none overtakes them (C2.4).
    private var heldBack = 0
    private var late: [Registration<T>] = []

    nonisolated let owner: ActorsBackend
    nonisolated let mailbox: Mailbox

    nonisolated var unownedExecutor: UnownedSerialExecutor { mailbox.asUnownedSerialExecutor() }

    init(owner: ActorsBackend) {
        self.owner = owner
        mailbox = Mailbox(pool: owner.pool, ownsTask: true)
        phase = Atomic(0)
        outcome = nil
        machine = TaskStateMachine()
    }

    init(owner: ActorsBackend, completed completion: Completion<T>) {
        self.owner = owner
        mailbox = Mailbox(pool: owner.pool, ownsTask: true)
        phase = Atomic(Self.settled)
        outcome = completion
        machine = TaskStateMachine(completed: completion)
    }

    deinit {
        // Freed while pending: let the continuations go one by one, not all at once (C8.2).
        var orphans = Array(machine.abandon()) + late
        late = []
        if !orphans.isEmpty { ThreadState.current.release(&orphans) }
    }

    // MARK: Synchronous answers (outside the actor)

    nonisolated var backend: any TaskBackend { owner }
    nonisolated var task: any AsyncTask<T> { self }

    nonisolated var status: TaskStatus {
        let bits = phase.load(ordering: .acquiring)
        if bits >= Self.completed { return .completed }
        return bits & Self.started != 0 ? .running : .pending
    }

    nonisolated var completion: Completion<T>? {
        phase.load(ordering: .acquiring) >= Self.completed ? outcome : nil
    }

    @discardableResult
    nonisolated func tryStart() -> Bool {
        phase.compareExchange(expected: 0, desired: Self.started,
                              successOrdering: .relaxed, failureOrdering: .relaxed).exchanged
    }

    /// Claims `phase` (C1.2), publishes the outcome, then tells the actor, which hands the
    /// continuations off in registration order (C2.4).
    @discardableResult
    nonisolated func tryComplete(_ completion: Completion<T>) -> Bool {
        tryComplete(completion, onlyIfPending: false)
    }

    /// `tryComplete`, but only while the body has not started (C4.3, for `runAsync`).
    @discardableResult
    nonisolated func tryComplete(_ completion: Completion<T>, onlyIfPending: Bool) -> Bool {
        var bits = phase.load(ordering: .relaxed)
        while true {
            if bits >= Self.completing || (onlyIfPending && bits != 0) { return false }
            let (won, current) = phase.compareExchange(
                expected: bits, desired: bits | Self.completing,
                successOrdering: .acquiring, failureOrdering: .relaxed)
            if won { break }
            bits = current
        }
        outcome = completion
        phase.store((bits & Self.started) | Self.completed, ordering: .releasing)
        if !mailbox.runIfIdle({ self.isolated { $0.complete(completion) } }) {
            send(CompleteMessage(self, completion))
        }
        return true
    }

    nonisolated func whenComplete(
        on executor: any TaskAPI.Executor,
        _ body: @escaping @Sendable (Completion<T>) -> Void
    ) {
        let registration = Registration(executor: executor, body: body)
        // Settled and nothing queued: every earlier registration was handed off, so handing this
        // one off here keeps registration order (C2.4) and saves the message.
        if phase.load(ordering: .acquiring) & ~Self.started == Self.settled, mailbox.isIdle, let outcome {
            Handoff.fromCaller(registration, outcome)
            return
        }
        enqueue(registration)
    }

    /// Registers a waker for `wait()` or `value`, always through the actor.
    nonisolated func register(waker body: @escaping @Sendable (Completion<T>) -> Void) {
        enqueue(Registration(executor: nil, body: body))
    }

    private nonisolated func enqueue(_ registration: Registration<T>) {
        if !mailbox.runIfIdle({ self.isolated { $0.register(registration) } }) {
            send(RegisterMessage(self, registration))
        }
    }

    private nonisolated func send(_ message: MailboxMessage) {
        if mailbox.push(message) { mailbox.drain() }
    }

    // MARK: Actor-isolated state

    fileprivate func register(_ registration: Registration<T>) {
        if let completion = machine.register(registration) {
            handOff(registration, completion)
            markSettledIfDone()
        }
    }

    fileprivate func complete(_ completion: Completion<T>) {
        guard var batch = machine.complete(completion) else { return }
        while true {
            for registration in batch {
                handOff(registration, completion)
            }
            // Always empty here: nothing interleaves with the actor, so registrations made during
            // this hand-over are messages queued behind it. Ends the machine's delivering phase.
            guard let next = machine.nextDelivery() else { break }
            batch = next
        }
        markSettledIfDone()
    }

    /// Hands `registration` over now, unless a hand-off queued on a trampoline has not run yet:
    /// then it waits behind it. A waker (no executor) never waits: it orders nothing.
    private func handOff(_ registration: Registration<T>, _ completion: Completion<T>) {
        if heldBack > 0 && registration.executor != nil {
            late.append(registration)
            return
        }
        if Handoff.fromActor(registration, completion) {
            heldBack += 1
            // Runs on the same thread right after the queued hand-off.
            ThreadState.current.later { self.release(completion) }
        }
    }

    /// A hand-off queued on a trampoline has run: hand over what waited behind it.
    private nonisolated func release(_ completion: Completion<T>) {
        if !mailbox.runIfIdle({ self.isolated { $0.released(completion) } }) {
            send(ReleaseMessage(self, completion))
        }
    }

    fileprivate func released(_ completion: Completion<T>) {
        heldBack -= 1
        guard heldBack == 0 else { return }
        let waiting = late
        late = []
        for registration in waiting {
            handOff(registration, completion)
        }
        markSettledIfDone()
    }

    /// Settled: every continuation handed over, nothing held back; only then may a registering
    /// thread hand over by itself (the fast path of `whenComplete`). No fast-path registration
    /// can overtake meanwhile: the mailbox is busy until this drain ends.
    private func markSettledIfDone() {
        let bits = phase.load(ordering: .relaxed)
        let state: UInt8 = heldBack == 0 ? Self.settled : Self.completed
        phase.store((bits & Self.started) | state, ordering: .releasing)
    }

    /// Runs `body` with the actor's isolation, from a message its mailbox is draining.
    ///
    /// Being the thread that drains the actor's mailbox *is* the actor's isolation (see
    /// `Mailbox.isIsolatingCurrentContext`). `assumeIsolated` asks the runtime, which costs
    /// 200-300 ns per message here; this checks the same thread-local directly, and only falls
    /// back to `assumeIsolated` (which traps) if the check fails, which would be a backend bug.
    nonisolated func isolated(_ body: (isolated ActorTask) -> Void) {
        guard ThreadState.current.draining === mailbox else {
            assumeIsolated(body)
            return
        }
        // Safe: the guard established isolation; dropping `isolated` from the function type is
        // the same cast `assumeIsolated` makes after its own check (the ABI is identical).
        withoutActuallyEscaping(body) { body in
            unsafeBitCast(body, to: ((ActorTask) -> Void).self)(self)
        }
    }

    /// The outcome as the actor sees it: an `await` into the actor, queued behind every message
    /// pushed before it (for tests of the FIFO path).
    func isolatedCompletion() -> Completion<T>? {
        machine.completion
    }
}

/// `register` as a mailbox message: runs with the task actor's isolation.
private final class RegisterMessage<T: Sendable>: MailboxMessage, @unchecked Sendable {
    // @unchecked Sendable: see `MailboxMessage`; the other fields are immutable and Sendable.
    let task: ActorTask<T>
    let registration: Registration<T>

    init(_ task: ActorTask<T>, _ registration: Registration<T>) {
        self.task = task
        self.registration = registration
    }

    override func run(in mailbox: Mailbox) {
        task.isolated { $0.register(registration) }
    }
}

/// `complete` as a mailbox message: runs with the task actor's isolation.
private final class CompleteMessage<T: Sendable>: MailboxMessage, @unchecked Sendable {
    // @unchecked Sendable: see `MailboxMessage`; the other fields are immutable and Sendable.
    let task: ActorTask<T>
    let completion: Completion<T>

    init(_ task: ActorTask<T>, _ completion: Completion<T>) {
        self.task = task
        self.completion = completion
    }

    override func run(in mailbox: Mailbox) {
        task.isolated { $0.complete(completion) }
    }
}

/// `released` as a mailbox message: runs with the task actor's isolation.
private final class ReleaseMessage<T: Sendable>: MailboxMessage, @unchecked Sendable {
    // @unchecked Sendable: see `MailboxMessage`; the other fields are immutable and Sendable.
    let task: ActorTask<T>
    let completion: Completion<T>

    init(_ task: ActorTask<T>, _ completion: Completion<T>) {
        self.task = task
        self.completion = completion
    }

    override func run(in mailbox: Mailbox) {
        task.isolated { $0.released(completion) }
    }
}
