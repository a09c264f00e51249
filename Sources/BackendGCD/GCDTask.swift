import Dispatch
import Synchronization
import TaskAPI

/// One registration on a GCD task, in a non-generic shape: where to run, and what to call.
struct GCDJob: Sendable {
    /// `nil` for a waker of `wait()`: called directly at completion, never through an executor.
    let executor: (any Executor)?
    let body: GCDJobBody

    init(executor: (any Executor)?, _ body: @escaping @Sendable (AnyCompletion) -> Void) {
        self.executor = executor
        self.body = .closure(body)
    }

    init(executor: any Executor, node: any GCDContinuationNode) {
        self.executor = executor
        body = .node(node)
    }
}

/// What a job runs: a closure, or a node that is itself the task the continuation completes,
/// which saves the closure's allocation (`map`, `continueWith`).
enum GCDJobBody: Sendable {
    case closure(@Sendable (AnyCompletion) -> Void)
    case node(any GCDContinuationNode)

    @inline(__always)
    func callAsFunction(_ outcome: AnyCompletion) {
        switch self {
        case .closure(let body): body(outcome)
        case .node(let node): node.run(outcome)
        }
    }
}

/// A derived task that runs its own continuation body when its antecedent completes.
protocol GCDContinuationNode: AnyObject, Sendable {
    /// Runs once, with the antecedent's outcome, on the executor the continuation was registered with.
    func run(_ outcome: AnyCompletion)
}

/// The GCD backend's task, which is also its own completion source.
///
/// The typed face of `GCDTaskCore`: it converts between `Completion<T>` and the core's erased
/// outcomes, and does nothing else.
class GCDTask<T: Sendable>: GCDTaskCore, AsyncTask, CompletionSource, @unchecked Sendable {
    // @unchecked: restated from GCDTaskCore; this class adds no stored property. Not final: the
    // continuation nodes (GCDTask+Continuations.swift) are derived tasks that carry their body.
    typealias Success = T

    var backend: any TaskBackend { owner }
    var task: any AsyncTask<T> { self }
    var completion: Completion<T>? { erasedCompletion?.typed() }

    final func tryComplete(_ completion: Completion<T>) -> Bool {
        complete(completion.erased)
    }

    final func whenComplete(on executor: any Executor, _ body: @escaping @Sendable (Completion<T>) -> Void) {
        register(GCDJob(executor: executor) { body($0.typed()) })
    }

    final func wait() -> Completion<T> {
        waitErased().typed()
    }

    final func wait(timeout: Duration) -> Completion<T>? {
        waitErased(timeout: timeout)?.typed()
    }
}

/// The state and logic of a GCD task, free of its value type.
///
/// Generic code called through `any AsyncTask<T>` runs unspecialized and pays a runtime metadata
/// lookup for every generic type it touches; keeping the state machine (over erased outcomes),
/// the lock and the hand-off in a non-generic class keeps those lookups off the hot paths.
/// The state is a `TaskStateMachine` under a `Locked` (a sanitizer-visible `Mutex`);
/// continuations are handed over after the lock is released, in registration order, from a
/// loop (C2.4, C2.7).
class GCDTaskCore: @unchecked Sendable {
    // @unchecked: the class is not final (GCDTask<T> refines it), which the checker cannot
    // verify; every stored property is a `let` of a Sendable type, and all mutable state is
    // inside `Locked`.
    let owner: GCDBackend
    private let machine: Mutex<TaskStateMachine<any Sendable, GCDJob>>
    /// Makes lock hand-offs visible to the thread sanitizer, as `Locked` does. `Locked` itself is
    /// not used here: wrapping the mutex in a generic struct of another module costs two runtime
    /// metadata lookups per critical section, a third of this path's instructions.
    private let edge = Atomic(0)

    init(owner: GCDBackend) {
        self.owner = owner
        machine = Mutex(TaskStateMachine())
    }

    init(owner: GCDBackend, completed completion: AnyCompletion) {
        self.owner = owner
        machine = Mutex(TaskStateMachine(completed: completion))
    }

    deinit {
        // Freed while pending: let the continuations go one by one, not all at once (C8.2).
        var orphans = withState { $0.abandon() }
        if !orphans.isEmpty { ThreadContext.current.release(&orphans) }
    }

    /// Runs `body` on the state machine under the lock.
    @inline(__always)
    private func withState<R: Sendable>(_ body: (inout TaskStateMachine<any Sendable, GCDJob>) -> R) -> R {
        machine.withLock { state in
            _ = edge.load(ordering: .acquiring)
            defer { edge.store(0, ordering: .releasing) }
            return body(&state)
        }
    }

    final var status: TaskStatus { withState { $0.status } }

    final var erasedCompletion: AnyCompletion? { withState { $0.completion } }

    final func tryStart() -> Bool {
        withState { $0.start() }
    }

    /// Completes the task (C1.2); hands the continuations over after the lock is released.
    final func complete(_ completion: AnyCompletion) -> Bool {
        guard var batch = withState({ $0.complete(completion) }) else { return false }
        while true {
            for job in batch { GCDHandOff.run(job, completion) }
            // Continuations registered meanwhile queue behind this batch (C2.4).
            guard let next = withState({ $0.nextDelivery() }) else { return true }
            batch = next
        }
    }

    /// Stores `job`, or runs it at once if the task is already completed (C2.1).
    final func register(_ job: GCDJob) {
        if let completion = withState({ $0.register(job) }) {
            GCDHandOff.run(job, completion)
        }
    }

    final func waitErased() -> AnyCompletion {
        if let completion = erasedCompletion { return completion }
        let waiter = GCDWaiter()
        if let completion = withState({ $0.register(waiter.job) }) { return completion }
        return blockingCall { waiter.wait() }
    }

    final func waitErased(timeout: Duration) -> AnyCompletion? {
        if let completion = erasedCompletion { return completion }
        let waiter = GCDWaiter()
        if let completion = withState({ $0.register(waiter.job) }) { return completion }
        return blockingCall { waiter.wait(timeout: timeout) }
    }
}

/// Hands one job to its executor (C2.3, C2.5). Our own Dispatch executors never run a job inside
/// `execute`, so they are called directly; inline jobs, and jobs for any other executor, go
/// through the thread's trampoline, so that an executor running jobs synchronously cannot turn a
/// long chain into a deep recursion (C2.7).
enum GCDHandOff {
    static func run(_ job: GCDJob, _ completion: AnyCompletion) {
        let body = job.body
        switch job.executor {
        case nil:
            body(completion)
        case is GCDInlineExecutor:
            ThreadContext.current.runInline(body, completion)
        case let executor as GCDDefaultExecutor:
            executor.execute { body(completion) }
        case let executor as GCDSerialExecutor:
            executor.execute { body(completion) }
        case let executor?:
            ThreadContext.current.runInline(.closure { completion in executor.execute { body(completion) } }, completion)
        }
    }
}

/// A blocked caller of `wait()`: a semaphore and the slot its waker fills (C6.1, C6.3).
private final class GCDWaiter: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let slot = Locked<AnyCompletion?>(nil)

    var job: GCDJob {
        GCDJob(executor: nil) { completion in
            self.slot.withLock { $0 = completion }
            self.semaphore.signal()
        }
    }

    func wait() -> AnyCompletion {
        while true {
            semaphore.wait()
            if let completion = slot.withLock({ $0 }) { return completion }
        }
    }

    func wait(timeout: Duration) -> AnyCompletion? {
        _ = semaphore.wait(timeout: .now() + dispatchInterval(timeout))
        return slot.withLock { $0 }
    }
}

/// `duration` as a Dispatch interval in nanoseconds, clamped to what Dispatch can represent.
func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
    let (seconds, attoseconds) = duration.components
    if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return .nanoseconds(0) }
    if seconds >= Int64(Int.max / 1_000_000_000) - 1 { return .never }
    return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
}
