import Synchronization
import TaskAPI

/// One registration on a threads task: where to run, and what.
struct ThreadsContinuation<T: Sendable>: Sendable {
    /// `nil` for the waker of a `wait()`: called directly at completion, never through an executor.
    let executor: (any Executor)?
    let body: @Sendable (Completion<T>) -> Void
}

/// The threads backend's task, which is also its own completion source.
///
/// Its state is a `TaskStateMachine` under TaskAPI's `Locked`; continuations are handed
/// over after the lock is released, in registration order, from a loop (C2.4, C2.7). Completing
/// and registering never block on anything but that short lock.
final class ThreadsTask<T: Sendable>: AsyncTask, CompletionSource {
    typealias Success = T

    let owner: ThreadsBackend
    private let state: Locked<TaskStateMachine<T, ThreadsContinuation<T>>>

    init(owner: ThreadsBackend) {
        self.owner = owner
        state = Locked(TaskStateMachine())
    }

    init(owner: ThreadsBackend, completed completion: Completion<T>) {
        self.owner = owner
        state = Locked(TaskStateMachine(completed: completion))
    }

    var backend: any TaskBackend { owner }
    var task: any AsyncTask<T> { self }
    var status: TaskStatus { state.withLock { $0.status } }
    var completion: Completion<T>? { state.withLock { $0.completion } }

    func tryStart() -> Bool {
        state.withLock { $0.start() }
    }

    /// Completes the task, then hands over its continuations, and any registered meanwhile, in
    /// registration order: the state machine keeps later registrations behind the current batch
    /// until this thread has handed it over (C2.4).
    func tryComplete(_ completion: Completion<T>) -> Bool {
        guard var batch = state.withLock({ $0.complete(completion) }) else { return false }
        while true {
            if !batch.isEmpty { Self.handOff(batch, completion) }
            guard let next = state.withLock({ $0.nextDelivery() }) else { return true }
            batch = next
        }
    }

    func whenComplete(on executor: any Executor, _ body: @escaping @Sendable (Completion<T>) -> Void) {
        let continuation = ThreadsContinuation(executor: executor, body: body)
        if let completion = state.withLock({ $0.register(continuation) }) {
            var single = Continuations<ThreadsContinuation<T>>()
            single.append(continuation)
            Self.handOff(single, completion)
        }
    }

    /// Hands each continuation to its executor, in order (C2.4). The pool and serial executors
    /// never run a job inside `execute`, so they are called directly; inline jobs and jobs for
    /// any other executor go through the thread's trampoline, so that an executor running jobs
    /// synchronously cannot turn a long chain into a deep recursion (C2.7).
    private static func handOff(
        _ continuations: Continuations<ThreadsContinuation<T>>,
        _ completion: Completion<T>
    ) {
        for continuation in continuations {
            let body = continuation.body
            switch continuation.executor {
            case nil:
                body(completion)
            case let executor as ThreadsDefaultExecutor:
                executor.core.push { body(completion) }
            case let executor as ThreadsSerialExecutor:
                executor.execute { body(completion) }
            case is ThreadsInlineExecutor:
                ThreadContext.current.submit { body(completion) }
            case let executor?:
                ThreadContext.current.submit { executor.execute { body(completion) } }
            }
        }
    }

    func wait() -> Completion<T> {
        if let completion { return completion }
        let waiter = Waiter<T>()
        if let completion = state.withLock({ $0.register(waiter.continuation) }) { return completion }
        return waiter.wait()
    }

    func wait(timeout: Duration) -> Completion<T>? {
        if let completion { return completion }
        let deadline = MonotonicClock.deadline(after: timeout)
        let waiter = Waiter<T>()
        if let completion = state.withLock({ $0.register(waiter.continuation) }) { return completion }
        return waiter.wait(until: deadline)
    }
}

/// A caller blocked in `wait()` (C6.1, C6.2, C6.3): spins briefly on an atomic flag, then sleeps
/// on a condition variable until its waker stores the outcome.
///
/// On a worker thread the whole wait, spin included, is reported to the pool at once, so a
/// replacement worker can start while this one spins (C6.4): under load a spin can be descheduled,
/// and nested waits must not add up such delays before the work they wait for gets a thread.
private final class Waiter<T: Sendable>: Sendable {
    private let slot = ConditionLock<Completion<T>?>(nil)
    private let done = Atomic(false)

    var continuation: ThreadsContinuation<T> {
        ThreadsContinuation(executor: nil) { completion in
            self.slot.withLock { $0 = completion }
            self.slot.signal()
            self.done.store(true, ordering: .releasing)
        }
    }

    func wait() -> Completion<T> {
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

    func wait(until deadline: UInt64) -> Completion<T>? {
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
