import Synchronization
import TaskAPI

/// One registration on a threads task, in a non-generic shape: where to run, and what to call.
struct ThreadsJob: Sendable {
    /// `nil` for the waker of a `wait()`: called directly at completion, never through an executor.
    let executor: (any Executor)?
    let body: ThreadsJobBody

    init(executor: (any Executor)?, _ body: @escaping @Sendable (AnyCompletion) -> Void) {
        self.executor = executor
        self.body = .closure(body)
    }

    init(executor: any Executor, node: any ThreadsContinuationNode) {
        self.executor = executor
        body = .node(node)
    }
}

/// What a job runs: a closure, or a node that is itself the task the continuation completes,
/// which saves the closure's allocation (`map`, `continueWith`).
enum ThreadsJobBody: Sendable {
    case closure(@Sendable (AnyCompletion) -> Void)
    case node(any ThreadsContinuationNode)

    @inline(__always)
    func callAsFunction(_ outcome: AnyCompletion) {
        switch self {
        case .closure(let body): body(outcome)
        case .node(let node): node.run(outcome)
        }
    }
}

/// A derived task that runs its own continuation body when its antecedent completes.
protocol ThreadsContinuationNode: AnyObject, Sendable {
    /// Runs once, with the antecedent's outcome, on the executor the continuation was registered with.
    func run(_ outcome: AnyCompletion)
}

/// The threads backend's task, which is also its own completion source.
///
/// The typed face of `ThreadsTaskCore`: it converts between `Completion<T>` and the core's erased
/// outcomes, and does nothing else.
class ThreadsTask<T: Sendable>: ThreadsTaskCore, AsyncTask, CompletionSource, @unchecked Sendable {
    // @unchecked: restated from ThreadsTaskCore; this class adds no stored property. Not final:
    // the continuation nodes (ThreadsTask+Continuations.swift) are derived tasks carrying their body.
    typealias Success = T

    var backend: any TaskBackend { owner }
    var task: any AsyncTask<T> { self }
    var completion: Completion<T>? { erasedCompletion?.typed() }

    final func tryComplete(_ completion: Completion<T>) -> Bool {
        complete(completion.erased)
    }

    final func whenComplete(on executor: any Executor, _ body: @escaping @Sendable (Completion<T>) -> Void) {
        register(ThreadsJob(executor: executor) { body($0.typed()) })
    }

    final func wait() -> Completion<T> {
        waitErased().typed()
    }

    final func wait(timeout: Duration) -> Completion<T>? {
        waitErased(timeout: timeout)?.typed()
    }
}

/// The state and logic of a threads task, free of its value type.
///
/// Generic code called through `any AsyncTask<T>` runs unspecialized and pays a runtime metadata
/// lookup for every generic type it touches; keeping the state machine (over erased outcomes),
/// the lock and the hand-off in a non-generic class keeps those lookups off the hot paths. The
/// state is a `TaskStateMachine` under a `Mutex` (plus a sanitizer edge, see `Locked`);
/// continuations are handed over after the lock is released, in registration order, from a loop
/// (C2.4, C2.7). Completing and registering never block on anything but that short lock.
class ThreadsTaskCore: @unchecked Sendable {
    // @unchecked: the class is not final (ThreadsTask<T> refines it), which the checker cannot
    // verify; every stored property is a `let` of a Sendable type, and all mutable state is
    // inside the mutex.
    let owner: ThreadsBackend
    private let machine: Mutex<TaskStateMachine<any Sendable, ThreadsJob>>
    /// Makes lock hand-offs visible to the thread sanitizer, as `Locked` does. `Locked` itself is
    /// not used here: wrapping the mutex in a generic struct of another module costs two runtime
    /// metadata lookups per critical section.
    private let edge = Atomic(0)

    init(owner: ThreadsBackend) {
        self.owner = owner
        machine = Mutex(TaskStateMachine())
    }

    init(owner: ThreadsBackend, completed completion: AnyCompletion) {
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
    private func withState<R: Sendable>(_ body: (inout TaskStateMachine<any Sendable, ThreadsJob>) -> R) -> R {
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

    /// Completes the task, then hands over its continuations, and any registered meanwhile, in
    /// registration order: the state machine keeps later registrations behind the current batch
    /// until this thread has handed it over (C1.2, C2.4).
    final func complete(_ completion: AnyCompletion) -> Bool {
        guard var batch = withState({ $0.complete(completion) }) else { return false }
        while true {
            for job in batch { ThreadsHandOff.run(job, completion) }
            guard let next = withState({ $0.nextDelivery() }) else { return true }
            batch = next
        }
    }

    /// Stores `job`, or hands it over at once if the task is completed and delivered (C2.1).
    final func register(_ job: ThreadsJob) {
        if let completion = withState({ $0.register(job) }) {
            ThreadsHandOff.run(job, completion)
        }
    }

    final func waitErased() -> AnyCompletion {
        if let completion = erasedCompletion { return completion }
        let waiter = Waiter()
        if let completion = withState({ $0.register(waiter.job) }) { return completion }
        return waiter.wait()
    }

    final func waitErased(timeout: Duration) -> AnyCompletion? {
        if let completion = erasedCompletion { return completion }
        let deadline = MonotonicClock.deadline(after: timeout)
        let waiter = Waiter()
        if let completion = withState({ $0.register(waiter.job) }) { return completion }
        return waiter.wait(until: deadline)
    }
}

/// Hands one job to its executor (C2.3, C2.5). The pool and serial executors never run a job
/// inside `execute`, so they are called directly; inline jobs and jobs for any other executor go
/// through the thread's trampoline, so that an executor running jobs synchronously cannot turn a
/// long chain into a deep recursion (C2.7).
enum ThreadsHandOff {
    static func run(_ job: ThreadsJob, _ completion: AnyCompletion) {
        let body = job.body
        switch job.executor {
        case nil:
            body(completion)
        case is ThreadsInlineExecutor:
            ThreadContext.current.runInline(body, completion)
        case let executor as ThreadsDefaultExecutor:
            executor.core.push { body(completion) }
        case let executor as ThreadsSerialExecutor:
            executor.execute { body(completion) }
        case let executor?:
            ThreadContext.current.runInline(.closure { completion in executor.execute { body(completion) } }, completion)
        }
    }
}

/// A caller blocked in `wait()` (C6.1, C6.2, C6.3): spins briefly on an atomic flag, then sleeps
/// on a condition variable until its waker stores the outcome.
///
/// On a worker thread the whole wait, spin included, is reported to the pool at once, so a
/// replacement worker can start while this one spins (C6.4): under load a spin can be descheduled,
/// and nested waits must not add up such delays before the work they wait for gets a thread.
private final class Waiter: Sendable {
    private let slot = ConditionLock<AnyCompletion?>(nil)
    private let done = Atomic(false)

    var job: ThreadsJob {
        ThreadsJob(executor: nil) { completion in
            self.slot.withLock { $0 = completion }
            self.slot.signal()
            self.done.store(true, ordering: .releasing)
        }
    }

    func wait() -> AnyCompletion {
        blockingCall {
            _ = Spin.until(polls: 512, busy: 512) { done.load(ordering: .acquiring) }
            slot.lock()
            defer { slot.unlock() }
            while true {
                if let completion = slot.guarded { return completion }
                slot.wait()
            }
        }
    }

    func wait(until deadline: UInt64) -> AnyCompletion? {
        blockingCall {
            _ = Spin.until(polls: 512, busy: 512) { done.load(ordering: .acquiring) }
            slot.lock()
            defer { slot.unlock() }
            while true {
                if let completion = slot.guarded { return completion }
                if !slot.wait(until: deadline) { return slot.guarded }
            }
        }
    }
}
