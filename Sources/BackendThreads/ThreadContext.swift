#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Per-thread state of the threads backend: the trampoline that makes inline hand-offs
/// iterative (C2.7), and, on a worker thread, the pool it belongs to (C6.4).
///
/// Only its own thread ever touches an instance, so it needs no lock.
final class ThreadContext {
    /// Hand-offs queued while this thread was already draining; run in FIFO order.
    private var queue: [() -> Void] = []
    private var head = 0
    private var draining = false

    /// The pool whose worker this thread is, or `nil` on any other thread.
    var pool: PoolCore?

    /// Runs `job` now if this thread is not already draining hand-offs; otherwise queues it
    /// behind them. Either way it has run when the outermost call returns, so nested hand-offs
    /// (a continuation completing a task whose continuation is inline, a million times over)
    /// become a loop instead of a recursion.
    func submit(_ job: @escaping () -> Void) {
        if draining {
            queue.append(job)
            return
        }
        draining = true
        job()
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
        draining = false
    }

    /// The calling thread's context, made on first use and freed when the thread exits.
    static var current: ThreadContext {
        if let pointer = pthread_getspecific(contextKey) {
            return Unmanaged<ThreadContext>.fromOpaque(pointer).takeUnretainedValue()
        }
        let context = ThreadContext()
        // The key's destructor releases this retain when the thread exits.
        pthread_setspecific(contextKey, Unmanaged.passRetained(context).toOpaque())
        return context
    }
}

/// The thread-specific key behind `ThreadContext.current`; created once, never deleted.
private let contextKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { pointer in
        guard let pointer else { return }
        Unmanaged<ThreadContext>.fromOpaque(pointer).release()
    }
    return key
}()

/// Wraps a call that may block the calling thread. On a worker of a pool, the pool counts the
/// worker as blocked for the duration and starts a replacement if queued work would otherwise
/// wait for it (C6.4). On any other thread it just calls `body`.
func blockingCall<R>(_ body: () -> R) -> R {
    guard let pool = ThreadContext.current.pool else { return body() }
    pool.willBlock()
    defer { pool.didUnblock() }
    return body()
}
