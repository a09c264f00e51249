import Synchronization
import TaskAPI

/// The state and logic of a kit task, free of its value type.
///
/// Generic code called through `any AsyncTask<T>` runs unspecialized and pays a runtime metadata
/// lookup for every generic type it touches; keeping the state machine (over erased outcomes),
/// the lock and the hand-off in a non-generic class keeps those lookups off the hot paths. The
/// state is a `TaskStateMachine` under a `Mutex` (plus a sanitizer edge, see TaskAPI's `Locked`);
/// continuations are handed over after the lock is released, in registration order, from a loop
/// (C2.4, C2.7). Completing and registering never block on anything but that short lock.
public class TaskCore: @unchecked Sendable {
    // @unchecked: the class is not final (KitTask<T> refines it), which the checker cannot
    // verify; every stored property is a `let` of a Sendable type, and all mutable state is
    // inside the mutex.
    let owner: any KitBackend
    private let machine: Mutex<TaskStateMachine<any Sendable, Job>>
    /// Makes lock hand-offs visible to the thread sanitizer, as `Locked` does. `Locked` itself is
    /// not used here: wrapping the mutex in a generic struct of another module costs two runtime
    /// metadata lookups per critical section.
    private let edge = Atomic(0)

    init(owner: any KitBackend) {
        self.owner = owner
        machine = Mutex(TaskStateMachine())
    }

    init(owner: any KitBackend, completed completion: AnyCompletion) {
        self.owner = owner
        machine = Mutex(TaskStateMachine(completed: completion))
    }

    deinit {
        // Freed while pending: let the continuations go one by one, not all at once (C8.2).
        var orphans = withState { $0.abandon() }
        if !orphans.isEmpty { ThreadRuntime.current.release(&orphans) }
    }

    /// Runs `body` on the state machine under the lock.
    @inline(__always)
    private func withState<R: Sendable>(_ body: (inout TaskStateMachine<any Sendable, Job>) -> R) -> R {
        machine.withLock { state in
            _ = edge.load(ordering: .acquiring)
            defer { edge.store(0, ordering: .releasing) }
            return body(&state)
        }
    }

    /// Where the task is (C1.5).
    public final var status: TaskStatus { withState { $0.status } }

    final var erasedCompletion: AnyCompletion? { withState { $0.completion } }

    /// Pending to running (C1.5); `false` if the task is no longer pending.
    @discardableResult
    public final func tryStart() -> Bool {
        withState { $0.start() }
    }

    /// Claims the start of this task's body (C4.3): `false` if the token's handler won the gate,
    /// if the token is cancelled by now (then the task is cancelled), or if the task is no longer
    /// pending. `StartGate.start` without its generic calls, for the hot path.
    final func startBody(_ gate: StartGate?, _ token: CancellationToken) -> Bool {
        if let gate, !gate.claimForBody() { return false }
        if token.isCancellationRequested {
            _ = complete(.cancelled)
            return false
        }
        return tryStart()
    }

    /// Completes the task, then hands over its continuations, and any registered meanwhile, in
    /// registration order (C1.2, C2.4). The hand-over runs on the thread's trampoline: at once,
    /// or, inside other trampoline work, queued behind it (C2.7); the task stays in its delivery
    /// phase until then, so no registration made meanwhile on another thread can overtake it.
    final func complete(_ completion: AnyCompletion) -> Bool {
        guard withState({ $0.completeForDelivery(completion) }) else { return false }
        ThreadRuntime.current.trampoline(.delivery(self))
        return true
    }

    /// Stores `job`; if the task is completed and delivered, hands it over through a delivery
    /// phase of its own, exactly as `complete` does (C2.1, C2.4).
    final func register(_ job: Job) {
        if withState({ $0.registerForDelivery(job) }) {
            ThreadRuntime.current.trampoline(.delivery(self))
        }
    }

    /// Hands over the stored continuations in batches until the state machine ends the delivery
    /// phase. Runs only from the thread's trampoline.
    final func deliver() {
        let (first, outcome) = withState { ($0.nextDelivery(), $0.completion) }
        guard var batch = first, let completion = outcome else { return }
        let owner = self.owner
        while true {
            for job in batch { HandOff.run(job, completion, owner: owner) }
            guard let next = withState({ $0.nextDelivery() }) else { return }
            batch = next
        }
    }

    /// Registers `job` unless the task is completed and delivered; then returns the outcome and
    /// registers nothing. For wakers, which need no hand-off.
    final func registerWaker(_ job: Job) -> AnyCompletion? {
        withState { $0.register(job) }
    }

    /// Removes `waiter`'s waker if it has not run: a timed-out wait, or an abandoned `await`,
    /// leaves nothing behind (C6.2, C4.7). `false` if it was no longer stored: the task completed
    /// and the waker ran or is running.
    final func remove(_ waiter: any ContinuationNode) -> Bool {
        let id = ObjectIdentifier(waiter)
        return withState { state in
            state.remove { job in
                if case .node(let node) = job.body { return ObjectIdentifier(node) == id }
                return false
            } != nil
        }
    }

    final func waitErased() -> AnyCompletion {
        if let completion = erasedCompletion { return completion }
        let waiter = Waiter()
        if let completion = registerWaker(waiter.job) { return completion }
        // Without a deadline the waiter returns only once woken.
        return waiter.wait(until: nil) ?? .cancelled
    }

    final func waitErased(timeout: Duration) -> AnyCompletion? {
        if let completion = erasedCompletion { return completion }
        let deadline = MonotonicClock.deadline(after: timeout)
        let waiter = Waiter()
        if let completion = registerWaker(waiter.job) { return completion }
        if let completion = waiter.wait(until: deadline) { return completion }
        if remove(waiter) { return nil }
        // Completed between the timeout and the removal: the outcome is there after all.
        return erasedCompletion
    }
}
