#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Per-thread state of the actors backend: which task mailbox the thread is draining (what makes
/// `assumeIsolated` hold for a task actor), the worker pool the thread belongs to (C6.4), and the
/// trampoline that turns nested inline hand-offs into a loop (C2.7).
///
/// Only its own thread ever touches an instance, so it needs no lock.
final class ThreadState {
    /// The mailbox whose messages this thread is running right now, if any.
    var draining: Mailbox?

    /// `true` while the thread drains a task mailbox inside trampoline work (a drain started by a
    /// continuation): hand-offs to user executors are then queued too (C2.7).
    var nestedDrain = false

    /// The pool this thread works for, if it is one of the backend's worker threads.
    var pool: WorkerPool?

    /// Jobs queued while the trampoline is active; run in FIFO order by the outermost caller.
    private var queue: [() -> Void] = []
    private var head = 0

    /// `true` while this thread runs trampoline work or drains a task mailbox: work handed to the
    /// thread then is queued instead of run, so that nothing nests.
    private(set) var active = false

    /// Continuations of tasks freed while pending, waiting to be released by the outermost
    /// `release(_:)` on this thread (boxed: they come from tasks of every value type).
    private var graveyard: [any Sendable] = []
    private var releasing = false

    /// Releases the continuations of a task freed while pending, in a loop instead of a
    /// recursion: a released continuation may hold a derived task whose own deinit lands here
    /// again, and is then only queued (C8.2: a long pending chain is freed in constant stack).
    /// `registrations` is emptied first, so that the graveyard holds the only references.
    func release<T>(_ registrations: inout [Registration<T>]) {
        for registration in registrations { graveyard.append(registration) }
        registrations = []
        if releasing { return }
        releasing = true
        while let registration = graveyard.popLast() {
            _ = consume registration
        }
        releasing = false
    }

    /// Runs `job` now if the trampoline is idle, otherwise queues it behind the running work.
    /// Either way it has run when the outermost call on this thread returns.
    func submit(_ job: @escaping () -> Void) {
        if active {
            queue.append(job)
            return
        }
        active = true
        job()
        runQueued()
        active = false
    }

    /// Queues `job` behind the running work; only valid while `active`.
    func later(_ job: @escaping () -> Void) {
        queue.append(job)
    }

    /// Marks the trampoline active for a mailbox drain; returns `false` if it already was (the
    /// drain is nested in trampoline work, which will run the queue).
    func enter() -> Bool {
        if active { return false }
        active = true
        return true
    }

    /// Ends an outermost drain: runs what it queued, then goes idle.
    func leave() {
        runQueued()
        active = false
    }

    private func runQueued() {
        while head < queue.count {
            let next = queue[head]
            head += 1
            next()
            if head == queue.count {
                // Releases the closures already run (C8.1) and keeps the buffer for reuse.
                queue.removeAll(keepingCapacity: true)
                head = 0
            }
        }
    }

    /// The calling thread's state, made on first use and freed when the thread exits.
    static var current: ThreadState {
        if let pointer = pthread_getspecific(threadStateKey) {
            return Unmanaged<ThreadState>.fromOpaque(pointer).takeUnretainedValue()
        }
        let state = ThreadState()
        // The key's destructor releases this retain when the thread exits.
        pthread_setspecific(threadStateKey, Unmanaged.passRetained(state).toOpaque())
        return state
    }
}

/// The thread-specific key behind `ThreadState.current`; created once, never deleted.
private let threadStateKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { pointer in
        guard let pointer else { return }
        Unmanaged<ThreadState>.fromOpaque(pointer).release()
    }
    return key
}()
