/// The state of one task as a small value: each event is a mutating method that returns what the
/// caller must do next. A backend keeps it under its own lock (or inside an actor) and acts on
/// the returned value only after releasing the lock, so continuations never run under a lock.
///
/// The toolkit for a backend written outside BackendKit (docs/WRITING_A_BACKEND.md builds one on
/// it). This package's backends use the kit's own machine instead, `KitState`: the same events,
/// the same delivery phase and the same answers, in three bytes, with the continuations and the
/// value kept beside it rather than in one generic value (docs/DESIGN.md, "`TaskStateMachine`
/// and the kit"). A test drives both with every sequence of their shared events and requires
/// the same answers (`TaskStateMachineLockstepTests`).
///
/// Checked as `KitState` is: after every event, a debug build asserts the machine's invariant
/// (an outcome exactly once completed, a delivery only once completed), and an event that is
/// impossible in the current state (`nextDelivery()` outside a delivery) stops the program,
/// naming the event and the state, in every build: it is a bug of the backend that calls it,
/// and answering it would hide one (a delivery ended twice lets a later registration overtake
/// an earlier one, C2.4).
///
/// `Continuation` is whatever the backend stores per registration (an executor and a closure).
public struct TaskStateMachine<Success: Sendable, Continuation> {
    // Laid out in declaration order: the two one-byte fields last, side by side, so that they
    // share a word and leave the rest of it as tail padding, which the fields stored after the
    // machine in a class (a lock, say) can use.
    @usableFromInline var _completion: Completion<Success>?
    @usableFromInline var continuations: Continuations<Continuation>
    @usableFromInline var _status: TaskStatus
    /// `true` from completion until the completing thread has handed over every continuation,
    /// including those registered while it was doing so (C2.4).
    @usableFromInline var _delivering = false

    /// Where the task is (C1.5).
    @inlinable public var status: TaskStatus { _status }
    /// The outcome, once completed (C1.1).
    @inlinable public var completion: Completion<Success>? { _completion }

    /// A pending task with no continuation.
    @inlinable
    public init() {
        _status = .pending
        _completion = nil
        continuations = Continuations()
    }

    /// An already-completed task (C1.4).
    @inlinable
    public init(completed completion: Completion<Success>) {
        _status = .completed
        self._completion = completion
        continuations = Continuations()
    }

    /// Registers `continuation` (C2.1). Returns `nil` if it was stored, or the outcome if the task
    /// is completed and delivered: then the caller hands it over now. While the completing thread
    /// is still handing over earlier continuations, a new one is stored behind them, so that it
    /// cannot overtake them (C2.4); `nextDelivery()` gives it to the completing thread.
    @inlinable
    public mutating func register(_ continuation: Continuation) -> Completion<Success>? {
        defer { assertConsistent(after: "register") }
        // Status, not `_completion`, decides: testing an optional outcome copies it, which costs
        // value-witness calls in code that is not specialized.
        if _status == .completed, !_delivering { return _completion }
        continuations.append(continuation)
        return nil
    }

    /// Registers `continuation` like `register(_:)`, except that on a task completed and
    /// delivered it stores the continuation too, reopens the delivery phase and returns `true`:
    /// the caller (or whoever it defers the hand-over to) then takes it with `nextDelivery()`, as
    /// after `completeForDelivery(_:)`. Meanwhile later registrations queue behind it, so a
    /// deferred hand-over (to a trampoline, say) is not overtaken by a registration made on
    /// another thread (C2.4). `false`: stored, and the running delivery (if any) will take it.
    @inlinable
    public mutating func registerForDelivery(_ continuation: Continuation) -> Bool {
        defer { assertConsistent(after: "registerForDelivery") }
        continuations.append(continuation)
        guard _status == .completed, !_delivering else { return false }
        _delivering = true
        return true
    }

    /// Pending to running (C1.5). `false`, changing nothing, if the task is not pending.
    @inlinable
    public mutating func start() -> Bool {
        defer { assertConsistent(after: "start") }
        guard _status == .pending else { return false }
        _status = .running
        return true
    }

    /// Completes the task (C1.1, C1.2). Returns `nil` if it was already completed (the caller
    /// lost the race and changes nothing), or the continuations to hand over, in registration
    /// order (C2.4). The machine keeps none of them (C8.1).
    ///
    /// The caller must then hand them over and call `nextDelivery()` until it returns `nil`:
    ///
    ///     var batch = lock { $0.complete(outcome) }
    ///     while let continuations = batch {
    ///         handOver(continuations)
    ///         batch = lock { $0.nextDelivery() }
    ///     }
    @inlinable
    public mutating func complete(_ completion: Completion<Success>) -> Continuations<Continuation>? {
        defer { assertConsistent(after: "complete") }
        guard _status != .completed else { return nil }
        self._completion = completion
        _status = .completed
        _delivering = true
        defer { continuations = Continuations() }
        return continuations
    }

    /// Completes the task like `complete(_:)`, but leaves the continuations stored: the caller,
    /// or whoever it defers the hand-over to, takes them in batches with `nextDelivery()` until
    /// it returns `nil`. `false`, changing nothing, if the task was already completed.
    @inlinable
    public mutating func completeForDelivery(_ completion: Completion<Success>) -> Bool {
        defer { assertConsistent(after: "completeForDelivery") }
        guard _status != .completed else { return false }
        self._completion = completion
        _status = .completed
        _delivering = true
        return true
    }

    /// Takes the continuations of a task that is being freed while still pending. A backend should
    /// release them in a loop rather than let them go with the task: each may hold a derived task
    /// holding its own, and letting a long pending chain go at once recurses once per link (C8.2).
    @inlinable
    public mutating func abandon() -> Continuations<Continuation> {
        var taken = Continuations<Continuation>()
        swap(&taken, &continuations)
        return taken
    }

    /// Removes the first stored continuation that `matches`, and returns it; `nil` if none does
    /// (it ran already, or was never stored). A blocking wait that timed out removes its waker
    /// this way, so that it leaves nothing behind on a task that stays pending (C6.2).
    @inlinable
    @discardableResult
    public mutating func remove(where matches: (Continuation) -> Bool) -> Continuation? {
        continuations.remove(where: matches)
    }

    /// The continuations registered while the completing thread handed over the previous batch,
    /// in registration order; `nil` when there are none, which ends the delivery: from then on
    /// `register` returns the outcome to its caller (C2.4).
    ///
    /// Only a delivery ends a round: called outside one (before the completion, or after the
    /// delivery ended), it stops the program, naming the state.
    @inlinable
    public mutating func nextDelivery() -> Continuations<Continuation>? {
        guard _delivering else { Self.impossible("nextDelivery()", in: stateDescription) }
        defer { assertConsistent(after: "nextDelivery") }
        guard !continuations.isEmpty else {
            _delivering = false
            return nil
        }
        // Moved out, not copied: no retain and release of each stored continuation.
        var taken = Continuations<Continuation>()
        swap(&taken, &continuations)
        return taken
    }

    /// The invariant every event keeps: an outcome exactly once completed, and a delivery only
    /// once completed.
    @inlinable
    var isConsistent: Bool {
        switch _status {
        case .pending, .running: return _completion == nil && !_delivering
        case .completed: return _completion != nil
        }
    }

    /// Debug builds: stops if `event` left the machine inconsistent, naming both.
    @inlinable @inline(__always)
    func assertConsistent(after event: StaticString) {
        assert(isConsistent, "TaskStateMachine: \(event) left an inconsistent state, \(stateDescription)")
    }

    /// Where the machine is, for the messages of its checks.
    @usableFromInline
    var stateDescription: String {
        "status \(_status), delivering \(_delivering), \(continuations.isEmpty ? "no" : "some") continuations stored"
    }

    /// An event impossible in the machine's state: a bug of the backend that calls it. Out of
    /// line and cold, as `KitState`'s.
    @usableFromInline @inline(never)
    static func impossible(_ event: StaticString, in state: String) -> Never {
        preconditionFailure(
            "TaskStateMachine: \(event) is impossible in \(state) (only a delivery, opened by complete, completeForDelivery or a registerForDelivery that returned true, ends a round)"
        )
    }
}

extension TaskStateMachine: Sendable where Continuation: Sendable {}
