import Dispatch
import Foundation
import ScheduleKit
import TaskAPI

/// The plug-in backend's task: TaskAPI's `TaskStateMachine` under a lock. Continuations are
/// handed over after the lock is released, from the thread's trampoline, so that a chain of any
/// length is a loop, not a recursion (C2.7), also when it is freed (C8.2).
final class PluginTask<T: Sendable>: AsyncTask {
    typealias Success = T

    struct Continuation {
        let executor: any AsyncTaskExecutor
        let body: @Sendable (Completion<T>) -> Void
        /// Set for a blocking wait's waker, so that a wait that timed out can take it back (C6.2).
        let waiter: ObjectIdentifier?
    }

    private let owner: PluginBackend
    private let state: Locked<TaskStateMachine<T, Continuation>>

    init(backend: PluginBackend) {
        owner = backend
        state = Locked(TaskStateMachine())
    }

    init(backend: PluginBackend, completed completion: Completion<T>) {
        owner = backend
        state = Locked(TaskStateMachine(completed: completion))
    }

    var backend: any TaskBackend { owner }
    var status: TaskStatus { state.withLock { $0.status } }
    var completion: Completion<T>? { state.withLock { $0.completion } }

    func start() -> Bool { state.withLock { $0.start() } }

    /// Completes the task once (C1.2); the continuations are delivered on the trampoline. The task
    /// stays in its delivering phase until they all were, so that a registration racing the
    /// delivery queues behind them (C2.4).
    func complete(_ completion: Completion<T>) -> Bool {
        guard state.withLock({ $0.completeForDelivery(completion) }) else { return false }
        Trampoline.current.run { self.deliver(completion) }
        return true
    }

    func whenComplete(on executor: any AsyncTaskExecutor, _ body: @escaping @Sendable (Completion<T>) -> Void) {
        register(Continuation(executor: executor, body: body, waiter: nil))
    }

    private func register(_ continuation: Continuation) {
        // On a completed task this reopens the delivering phase: the hand-over goes through the
        // trampoline, and registrations from other threads meanwhile wait behind it (C2.4).
        let reopened: Completion<T>? = state.withLock { state in
            state.registerForDelivery(continuation) ? state.completion : nil
        }
        if let reopened { Trampoline.current.run { self.deliver(reopened) } }
    }

    /// Hands over every stored continuation, batch by batch, until none is left.
    private func deliver(_ completion: Completion<T>) {
        while let batch = state.withLock({ $0.nextDelivery() }) {
            for continuation in batch {
                let body = continuation.body
                if continuation.executor is InlineExecutor {
                    body(completion)  // on the trampoline already: what it completes queues behind
                } else {
                    continuation.executor.execute { body(completion) }
                }
            }
        }
    }

    func wait() -> Completion<T> {
        if let completion { return completion }
        let woken = DispatchSemaphore(value: 0)
        whenComplete(on: owner.inlineExecutor) { _ in woken.signal() }
        woken.wait()
        return completion ?? .cancelled
    }

    func wait(timeout: Duration) -> Completion<T>? {
        if let completion { return completion }
        let woken = DispatchSemaphore(value: 0)
        let id = ObjectIdentifier(woken)
        register(Continuation(executor: owner.inlineExecutor, body: { _ in woken.signal() }, waiter: id))
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000
        let deadline = DispatchTime.now() + .nanoseconds(Int(min(nanoseconds, Int64(Int32.max) * 1_000)))
        // A timed-out wait is believed only once the deadline has passed (C6.2): on Linux,
        // Dispatch turns the deadline into a wall-clock time for `sem_timedwait`, and a thread
        // preempted between its two clock reads, or a step of the wall clock, ends the wait early
        // (one returned after 551us of 882us under the thread sanitizer, and conformance said so).
        var timedOut = woken.wait(timeout: deadline) == .timedOut
        while timedOut, DispatchTime.now() < deadline { timedOut = woken.wait(timeout: deadline) == .timedOut }
        if timedOut {
            // Take the waker back, so that a task that stays pending keeps nothing of this call.
            _ = state.withLock { $0.remove { $0.waiter == id } }
        }
        return completion
    }
}

/// The writing side of a `PluginTask`. Released while its task is pending, nobody can complete
/// the task any more: it fails it with `TaskError.abandoned`, waking its waiters (C8.3).
final class PluginSource<T: Sendable>: CompletionSource {
    typealias Success = T
    private let base: PluginTask<T>

    init(_ task: PluginTask<T>) {
        base = task
    }

    deinit {
        _ = base.complete(.failure(TaskError.abandoned))
    }

    var task: any AsyncTask<T> { base }

    @discardableResult
    func tryComplete(_ completion: Completion<T>) -> Bool { base.complete(completion) }

    @discardableResult
    func tryStart() -> Bool { base.start() }
}

/// The inline executor: runs a job on the calling thread before `execute` returns, unless the
/// thread is already running inline work; then the job waits behind it (C2.7).
final class InlineExecutor: AsyncTaskExecutor {
    func execute(_ job: @escaping @Sendable () -> Void) {
        Trampoline.current.run(job)
    }
}

/// A per-thread queue that turns nested hand-offs into a loop. Only its own thread touches it.
final class Trampoline {
    private var jobs: [(() -> Void)?] = []
    private var head = 0
    private var running = false

    func run(_ job: @escaping () -> Void) {
        if running {
            jobs.append(job)
            return
        }
        running = true
        job()
        while head < jobs.count {
            let next = jobs[head]
            jobs[head] = nil
            head += 1
            next?()
        }
        jobs.removeAll(keepingCapacity: true)
        head = 0
        running = false
    }

    private static let key = ThreadLocalKey()

    static var current: Trampoline {
        if let trampoline = key.get() as? Trampoline { return trampoline }
        let trampoline = Trampoline()
        key.set(trampoline)
        return trampoline
    }
}

/// A thread-local object reference, released when the thread ends.
final class ThreadLocalKey: @unchecked Sendable {
    // @unchecked: `key` is written once, in `init`.
    private var key = pthread_key_t()

    init() {
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
        }
    }

    func get() -> AnyObject? {
        pthread_getspecific(key).map { Unmanaged<AnyObject>.fromOpaque($0).takeUnretainedValue() }
    }

    func set(_ value: AnyObject?) {
        let old = pthread_getspecific(key)
        pthread_setspecific(key, value.map { Unmanaged.passRetained($0).toOpaque() })
        if let old { Unmanaged<AnyObject>.fromOpaque(old).release() }
    }
}
