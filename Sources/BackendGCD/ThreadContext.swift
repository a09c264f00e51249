import TaskAPI
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Per-thread state of the GCD backend: the trampoline that makes inline hand-offs iterative
/// (C2.7), and the job queue of the default executor whose job the thread is running (C6.4).
///
/// Only its own thread ever touches an instance, so it needs no lock.
final class ThreadContext {
    /// Inline work queued while this thread was already running inline work; run in FIFO order.
    /// A struct, not a tuple: a closure stored in an array of tuples is re-abstracted through an
    /// allocated thunk, twice per queued job.
    private struct Work {
        let body: GCDJobBody
        let completion: AnyCompletion
    }

    private var queue: [Work] = []
    private var head = 0
    private var draining = false

    /// The default executor's queue while this thread runs one of its jobs, else `nil`.
    var pool: GCDJobQueue?

    /// Runs `body(completion)` now if this thread is not already running inline work; otherwise
    /// queues it behind that work. Either way it has run when the outermost call returns, so
    /// nested hand-offs (a continuation completing a task whose continuation is inline, a
    /// million times over) become a loop instead of a recursion. Allocates nothing unless it
    /// has to queue.
    func runInline(_ body: GCDJobBody, _ completion: AnyCompletion) {
        if draining {
            queue.append(Work(body: body, completion: completion))
            return
        }
        draining = true
        body(completion)
        while head < queue.count {
            let next = queue[head]
            head += 1
            next.body(next.completion)
            if head == queue.count {
                // Releases the closures already run (C8.1) and keeps the buffer for reuse.
                queue.removeAll(keepingCapacity: true)
                head = 0
            }
        }
        draining = false
    }

    /// Runs `job` like `runInline`: the inline executor's `execute`.
    func submit(_ job: @escaping @Sendable () -> Void) {
        runInline(.closure { _ in job() }, .cancelled)
    }

    /// Continuations of tasks freed while pending, waiting to be released by the outermost
    /// `release(_:)` on this thread.
    private var graveyard: [GCDJob] = []
    private var releasing = false

    /// Releases the continuations of a task freed while pending, in a loop instead of a
    /// recursion: a released continuation may hold a derived task whose own deinit lands here
    /// again, and is then only queued (C8.2: a long pending chain is freed in constant stack).
    /// `jobs` is emptied first, so that the graveyard holds the only references while it drains.
    func release(_ jobs: inout Continuations<GCDJob>) {
        graveyard.append(contentsOf: jobs)
        jobs = Continuations()
        if releasing { return }
        releasing = true
        while let job = graveyard.popLast() {
            _ = consume job
        }
        releasing = false
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
