import Synchronization
import TaskAPI

/// The state and logic of a kit task, free of its value type.
///
/// Generic code called through `any AsyncTask<T>` runs unspecialized and pays a runtime metadata
/// lookup for every generic type it touches; keeping the state machine, the lock and the hand-off
/// in a non-generic class keeps those lookups off the hot paths. The state is a
/// `TaskStateMachine<Void, KitContinuation>` under a `Mutex` (plus a sanitizer edge, see TaskAPI's `Locked`):
/// its outcome is the task's `Outcome` (failure and cancellation as they are, a success without
/// its value), and the value itself sits in the typed slot of `KitTask<T>`, written under the same
/// lock by the completion that wins, before that completion is published. So no value is ever
/// boxed as `any Sendable` nor cast back. Continuations are handed over after the lock is
/// released, in registration order, from a loop (C2.4, C2.7). Completing and registering never
/// block on anything but that short lock.
public class TaskCore: KitContinuation, @unchecked Sendable {
    // @unchecked: the class is not final (KitTask<T> refines it), which the checker cannot
    // verify; every stored property but `machine` is a `let` of a Sendable type, and `machine` is
    // touched only under `lock` (or in deinit, when no other reference is left). A derived task is
    // also the registration on its antecedent (`KitContinuation`) and stores where it runs; any
    // other task stores no executor.
    //
    // Stored in this order, `edge` a byte, so that `edge` and `lock` share one word after the
    // machine: a source's `KitTask<Int>` takes 88 bytes (a malloc chunk of 96), a `map` node 128
    // (a chunk of 144).
    let owner: any KitBackend
    /// The state, guarded by `lock`. Beside the mutex rather than inside it: deinit then reads it
    /// without locking, and destroying it needs no generic value witness of the mutex's cell.
    // @exclusivity(unchecked): every access is under `lock`, or in deinit; none overlaps another.
    @exclusivity(unchecked) private var machine: TaskStateMachine<Void, KitContinuation>
    /// Makes lock hand-offs visible to the thread sanitizer, as `Locked` does. `Locked` itself is
    /// not used here: wrapping the mutex in a generic struct of another module costs two runtime
    /// metadata lookups per critical section.
    private let edge = Atomic<UInt8>(0)
    private let lock = Mutex(())

    /// A pending task.
    @inline(__always)
    init(owner: any KitBackend) {
        self.owner = owner
        machine = TaskStateMachine()
    }

    init(owner: any KitBackend, completed outcome: Outcome) {
        self.owner = owner
        machine = TaskStateMachine(completed: outcome)
    }

    deinit {
        // Freed while pending: let the continuations go one by one, not all at once (C8.2).
        // No other reference is left: no lock needed.
        var orphans = machine.abandon()
        if !orphans.isEmpty { ThreadRuntime.current.release(&orphans) }
    }

    /// Runs `body` on the state machine under the lock.
    @inline(__always)
    private func withState<R: Sendable>(_ body: (inout TaskStateMachine<Void, KitContinuation>) -> R) -> R {
        lock.withLock { _ in
            _ = edge.load(ordering: .acquiring)
            defer { edge.store(0, ordering: .releasing) }
            return body(&machine)
        }
    }

    /// Whether the task completed with a success, read without the lock: for deinit only, when no
    /// other reference is left. A `KitTask<T>`'s slot then holds the value.
    final var holdsValue: Bool {
        guard case .success = machine.completion else { return false }
        return true
    }

    /// Where the task is (C1.5).
    public final var status: TaskStatus { withState { $0.status } }

    /// The outcome without its value, once completed.
    final var outcome: Outcome? { withState { $0.completion } }

    /// Pending to running (C1.5); `false` if the task is no longer pending.
    @discardableResult
    public final func tryStart() -> Bool {
        withState { $0.start() }
    }

    /// Claims the start of this task's body (C4.3): `false` if the token's handler won the gate,
    /// if the token is cancelled by now (then the task is cancelled), or if the task is no longer
    /// pending. `StartGate.start` without its generic calls, for the hot path. A `nil` guard is a
    /// token that can never be cancelled: then only the status decides.
    @inline(__always)
    final func startBody(_ startGuard: StartGuard?) -> Bool {
        if let startGuard, !startGuard.allowsStart(of: self) { return false }
        return tryStart()
    }

    /// Completes the task, then hands over its continuations, and any registered meanwhile, in
    /// registration order (C1.2, C2.4). `store` runs under the lock only if this call wins, before
    /// the outcome is published: `KitTask<T>` stores a success's value with it. The continuations
    /// stored by then are taken in the same critical section; with none, there is nothing more to
    /// do. Otherwise the hand-over runs on the thread's trampoline: at once, or, inside other
    /// trampoline work, queued behind it (C2.7); the task stays in its delivery phase until then,
    /// so no registration made meanwhile on another thread can overtake it.
    @inline(__always)
    final func complete(_ outcome: Outcome, storing store: () -> Void) -> Bool {
        SchedulePoint.reach() // Points (no lock held): TaskAPI's SchedulePoint.swift.
        var batch = Continuations<KitContinuation>()
        let won = withState { state in
            guard state.status != .completed else { return false }
            store()
            return state.complete(outcome, taking: &batch)
        }
        guard won else { return false }
        if batch.isEmpty { return true }
        // Between winning and handing over: a registration made meanwhile queues behind this
        // delivery phase (C2.4).
        SchedulePoint.reach()
        var work = ThreadRuntime.Work.handOver(self, outcome, consume batch)
        ThreadRuntime.trampolineHere(&work)
        return true
    }

    /// Completes the task with a failure or a cancellation; see `complete(_:storing:)`.
    final func complete(_ outcome: Outcome) -> Bool {
        complete(outcome, storing: {})
    }

    /// Stores `continuation`; if the task is completed and delivered, hands it over through a
    /// delivery phase of its own, exactly as `complete` does (C2.1, C2.4).
    final func register(_ continuation: KitContinuation) {
        SchedulePoint.reach()
        if withState({ $0.registerForDelivery(continuation) }) {
            var work = ThreadRuntime.Work.delivery(self)
            ThreadRuntime.trampolineHere(&work)
        }
    }

    /// Takes the stored continuations and hands them over (see `handOver`). Runs only from the
    /// thread's trampoline, for a delivery phase that a registration opened.
    final func deliver() {
        let (first, completed) = withState { ($0.nextDelivery(), $0.completion) }
        guard let batch = first, let outcome = completed else { return }
        handOver(batch, outcome)
    }

    /// Hands over `first`, a batch taken from the state machine, then the batches registered
    /// meanwhile, until the state machine ends the delivery phase. Runs only from the thread's
    /// trampoline.
    final func handOver(_ first: consuming Continuations<KitContinuation>, _ outcome: Outcome) {
        var batch = first
        while true {
            // Each continuation is moved out of the batch for its hand-off: no retain of it.
            if let continuation = batch.takeFirst() {
                HandOff.run(continuation, outcome, self)
                if !batch.tail.isEmpty {
                    for continuation in batch.tail { HandOff.run(continuation, outcome, self) }
                }
            }
            guard let next = withState({ $0.nextDelivery() }) else { return }
            batch = next
        }
    }

    /// Registers `waker` unless the task is completed and delivered; then returns the outcome and
    /// registers nothing. For wakers, which need no hand-off.
    final func registerWaker(_ waker: KitContinuation) -> Outcome? {
        withState { $0.register(waker) }
    }

    /// Removes `waiter`'s waker if it has not run: a timed-out wait, or an abandoned `await`,
    /// leaves nothing behind (C6.2, C4.7). `false` if it was no longer stored: the task completed
    /// and the waker ran or is running.
    final func remove(_ waker: KitContinuation) -> Bool {
        withState { state in state.remove { $0 === waker } != nil }
    }

    /// Blocks until the task completes (C6.1); the value of a success is then in the slot.
    final func waitOutcome() -> Outcome {
        if let outcome { return outcome }
        let waiter = Waiter()
        if let outcome = registerWaker(waiter) { return outcome }
        // Without a deadline the waiter returns only once woken, when the outcome is there.
        _ = waiter.wait(until: nil)
        return outcome ?? .cancelled
    }

    /// Blocks until the task completes or `timeout` elapses (C6.2); `nil` if it timed out.
    final func waitOutcome(timeout: Duration) -> Outcome? {
        if let outcome { return outcome }
        let deadline = MonotonicClock.deadline(after: timeout)
        let waiter = Waiter()
        if let outcome = registerWaker(waiter) { return outcome }
        if waiter.wait(until: deadline) { return outcome }
        if remove(waiter) { return nil }
        // Completed between the timeout and the removal: the outcome is there after all.
        return outcome
    }
}

/// What a derived task checks before its body starts when its token can be cancelled (C4.3): the
/// gate and the token, behind one optional reference, so that the node of a token that can never
/// be cancelled (the common case) stores and tests a single word.
final class StartGuard: Sendable {
    private let gate: StartGate?
    private let token: CancellationToken

    /// A guard for `task`'s body under `token`, which can be cancelled.
    init<T>(for task: KitTask<T>, token: CancellationToken) {
        self.token = token
        gate = StartGate.make(for: task, token: token)
    }

    /// `false` if the token's handler won the gate, or if the token is cancelled by now: then
    /// `task` is cancelled.
    func allowsStart(of task: TaskCore) -> Bool {
        if let gate, !gate.claimForBody() { return false }
        if token.isCancellationRequested {
            _ = task.complete(.cancelled)
            return false
        }
        return true
    }
}
