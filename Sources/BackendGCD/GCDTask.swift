import Dispatch
import Synchronization
import TaskAPI

/// One registration on a GCD task: where to run, and what.
struct GCDContinuation<T: Sendable>: Sendable {
    /// `nil` for a waker of `wait()`: called directly at completion, never through an executor.
    let executor: (any Executor)?
    let body: @Sendable (Completion<T>) -> Void
}

/// The GCD backend's task, which is also its own completion source.
///
/// Its state is a `TaskStateMachine` under a `Locked` (a sanitizer-visible `Mutex`); continuations are handed over after the
/// lock is released, in registration order, from a loop (C2.4, C2.7).
final class GCDTask<T: Sendable>: AsyncTask, CompletionSource {
    typealias Success = T

    let owner: GCDBackend
    private let state: Locked<TaskStateMachine<T, GCDContinuation<T>>>

    init(owner: GCDBackend) {
        self.owner = owner
        state = Locked(TaskStateMachine())
    }

    init(owner: GCDBackend, completed completion: Completion<T>) {
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

    func tryComplete(_ completion: Completion<T>) -> Bool {
        guard let continuations = state.withLock({ $0.complete(completion) }) else { return false }
        if !continuations.isEmpty { Self.handOff(continuations, completion) }
        return true
    }

    func whenComplete(on executor: any Executor, _ body: @escaping @Sendable (Completion<T>) -> Void) {
        let continuation = GCDContinuation(executor: executor, body: body)
        if let completion = state.withLock({ $0.register(continuation) }) {
            var single = Continuations<GCDContinuation<T>>()
            single.append(continuation)
            Self.handOff(single, completion)
        }
    }

    /// Hands each continuation to its executor, in order (C2.4). Our own Dispatch executors never
    /// run a job inside `execute`, so they are called directly; inline jobs and jobs for any
    /// other executor go through the thread's trampoline, so that an executor running jobs
    /// synchronously cannot turn a long chain into a deep recursion (C2.7).
    private static func handOff(_ continuations: Continuations<GCDContinuation<T>>, _ completion: Completion<T>) {
        for continuation in continuations {
            let body = continuation.body
            switch continuation.executor {
            case nil:
                body(completion)
            case let executor as GCDDefaultExecutor:
                executor.execute { body(completion) }
            case let executor as GCDSerialExecutor:
                executor.execute { body(completion) }
            case is GCDInlineExecutor:
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
        return blockingCall { waiter.wait() }
    }

    func wait(timeout: Duration) -> Completion<T>? {
        if let completion { return completion }
        let waiter = Waiter<T>()
        if let completion = state.withLock({ $0.register(waiter.continuation) }) { return completion }
        return blockingCall { waiter.wait(timeout: timeout) }
    }
}

/// A blocked caller of `wait()`: a semaphore and the slot its waker fills (C6.1, C6.3).
private final class Waiter<T: Sendable>: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let slot = Locked<Completion<T>?>(nil)

    var continuation: GCDContinuation<T> {
        GCDContinuation(executor: nil) { completion in
            self.slot.withLock { $0 = completion }
            self.semaphore.signal()
        }
    }

    func wait() -> Completion<T> {
        while true {
            semaphore.wait()
            if let completion = slot.withLock({ $0 }) { return completion }
        }
    }

    func wait(timeout: Duration) -> Completion<T>? {
        if semaphore.wait(timeout: .now() + dispatchInterval(timeout)) == .timedOut {
            return slot.withLock { $0 }
        }
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
