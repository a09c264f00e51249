import TaskAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Per-thread state of the kit, shared by every backend built on it: the trampoline that makes
/// inline hand-offs iterative (C2.7), the graveyard that frees abandoned chains in a loop (C8.2),
/// and the pool whose worker the thread is, if any (C6.4).
///
/// Only its own thread ever touches an instance, so it needs no lock.
public final class ThreadRuntime {
    /// Work the trampoline runs in FIFO order: a task's hand-over of its continuations (taken by
    /// the completion or registration that queued it, with the outcome), or one job of the inline
    /// executor.
    ///
    /// Noncopyable, so that it only ever moves: a copyable enum's payload was copied out of it to
    /// run (a retain and a release of each reference, three per hand-over).
    enum Work: ~Copyable {
        /// `Bool`: the task's inline body runs first (see `TaskCore.handOver`).
        case handOver(TaskCore, KitCompletion, Bool, KitContinuations)
        case job(@Sendable () -> Void)
        /// A slot whose work was taken (not `Optional<Work>`: its generic value witnesses cost
        /// a hundred instructions per slot).
        case taken

        /// Runs the work on `runtime`, the calling thread's, whose trampoline runs it.
        @inline(__always)
        consuming func run(on runtime: ThreadRuntime) {
            switch consume self {
            case .handOver(let core, let outcome, let inline, let batch):
                core.handOver(inline, batch, outcome, on: runtime)
            case .job(let job): job()
            case .taken: break
            }
        }

        var isTaken: Bool {
            switch self {
            case .taken: return true
            default: return false
            }
        }
    }

    /// Work queued while this thread was already running trampoline work; run in FIFO order:
    /// `next` first, then the queue from `head` to `tail`. `next` takes a work only when both are
    /// empty, so a chain whose every link queues the next (the common case) never touches the
    /// queue. A work is moved out of its slot before it runs, so nothing run stays referenced
    /// (C8.1). The queue is a plain buffer rather than an array, which cannot hold noncopyable
    /// elements; slots `head..<tail` are initialized, all others not.
    ///
    /// `next` is a buffer of one, always initialized (`.taken` when empty), rather than a stored
    /// `Work`: a work is moved into it by `initialize(to:)` over the `.taken` it holds, which owns
    /// nothing, where an assignment or a `swap` left a `Work` to destroy (the outlined destroy
    /// of a `Work`, 21 instructions per queued hand-over, callgrind).
    private let next: UnsafeMutablePointer<Work> = {
        let slot = UnsafeMutablePointer<Work>.allocate(capacity: 1)
        slot.initialize(to: .taken)
        return slot
    }()
    // @exclusivity(unchecked) here and below: only this thread touches the runtime, and no access
    // to these fields overlaps another (work runs between accesses, never inside one).
    @exclusivity(unchecked) private var queue: UnsafeMutablePointer<Work>?
    @exclusivity(unchecked) private var capacity = 0
    @exclusivity(unchecked) private var head = 0
    @exclusivity(unchecked) private var tail = 0
    @exclusivity(unchecked) private var draining = false
    /// A drained queue keeps this much capacity for reuse and gives back the rest.
    private static let keptCapacity = 64

    /// The pool whose worker this thread is, or `nil` on any other thread. A backend sets it on
    /// its worker threads; `blockingCall` reports blocking to it (C6.4).
    public var pool: (any BlockingPool)?

    /// The serial executor whose jobs this thread is running, if its backend records it: what
    /// a `SerialExecutor`'s `isIsolatingCurrentContext` can answer from.
    public var isolation: AnyObject?

    deinit {
        // The trampoline drains before it returns, so the queue holds nothing by now; the
        // deinitialization is for form.
        next.deinitialize(count: 1)
        next.deallocate()
        if let queue {
            (queue + head).deinitialize(count: tail - head)
            queue.deallocate()
        }
    }

    /// Runs `work` now if this thread is not already running trampoline work; otherwise queues
    /// it behind that work. Either way it has run when the outermost call returns, so nested
    /// hand-offs (a continuation completing a task whose continuation is inline, a million times
    /// over) become a loop instead of a recursion (C2.7). Allocates nothing unless it must queue.
    /// `work` is consumed: a caller that has the runtime at hand leaves nothing behind to
    /// destroy (see `next`; `trampolineHere` leaves a `.taken`).
    @inline(__always)
    func trampoline(_ work: consuming Work) {
        if draining { return queue(work) }
        draining = true
        work.run(on: self)
        if holdsWork { drain() }
        draining = false
    }

    /// `trampoline(.handOver(core, outcome, inline, batch))`: `core` hands over `batch`, after
    /// its inline body if `inline` (`TaskCore.handOver`). A hand-over that runs at once (this
    /// thread runs no trampoline work) is called here with `core` as the caller lent it, not
    /// built into a `Work` that owns it: one retain and release of the task fewer per
    /// completion on a pool's thread (callgrind, the default-executor link). The caller holds
    /// `core` until this returns, as it does anyway while the task completes; a hand-over queued
    /// behind other work takes its own reference.
    @inline(__always)
    func trampolineHandOver(_ core: TaskCore, _ outcome: KitCompletion, _ inline: Bool, _ batch: consuming KitContinuations) {
        if draining { return queue(.handOver(core, outcome, inline, batch)) }
        draining = true
        core.handOver(inline, batch, outcome, on: self)
        if holdsWork { drain() }
        draining = false
    }

    /// Queues `work` behind the trampoline work this thread is running (`draining`).
    @inline(__always)
    private func queue(_ work: consuming Work) {
        if next.pointee.isTaken, head == tail {
            // Safe: `next` holds `.taken` (tested just above), which owns nothing, so it is
            // initialized over without a destroy and nothing leaks.
            next.initialize(to: work)
        } else {
            enqueue(work)
        }
    }

    /// Whether work is queued (`drain` has something to run): tested inline, so that a work
    /// that queued nothing (a link run in place) skips the call.
    @inline(__always)
    private var holdsWork: Bool { !next.pointee.isTaken || head < tail }

    /// Whether this thread is running trampoline work now.
    @inline(__always)
    var isDraining: Bool { draining }

    /// Runs `body` as trampoline work, on a thread running none (`isDraining` is false): work it
    /// queues runs after it, before this returns, as for `trampoline(_:)`.
    @inline(__always)
    func runAsWork(_ body: () -> Void) {
        draining = true
        body()
        if holdsWork { drain() }
        draining = false
    }

    /// Runs the queued work in FIFO order until none is left.
    private func drain() {
        while true {
            if !next.pointee.isTaken {
                // Moved out, and `.taken` put back at once: `next` stays initialized.
                let work = next.move()
                next.initialize(to: .taken)
                work.run(on: self)
            } else if head < tail {
                // Only initialized slots lie in head..<tail, and `queue` is set whenever any does.
                let work = (queue.unsafelyUnwrapped + head).move()
                head += 1
                if head == tail { resetQueue() }
                work.run(on: self)
            } else {
                return
            }
        }
    }

    /// Appends `work` to the queue, growing it (or moving its live slots to the front) if full.
    private func enqueue(_ work: consuming Work) {
        if tail == capacity {
            let count = tail - head
            if let queue, count * 2 <= capacity {
                // Overlapping ranges are allowed: the live slots move to the front.
                queue.moveInitialize(from: queue + head, count: count)
            } else {
                let newCapacity = Swift.max(16, capacity * 2)
                let fresh = UnsafeMutablePointer<Work>.allocate(capacity: newCapacity)
                if let queue {
                    fresh.moveInitialize(from: queue + head, count: count)
                    queue.deallocate()
                }
                queue = fresh
                capacity = newCapacity
            }
            head = 0
            tail = count
        }
        (queue.unsafelyUnwrapped + tail).initialize(to: work)
        tail += 1
    }

    /// The queue caught up: start again at its front, keeping a small buffer for reuse.
    private func resetQueue() {
        head = 0
        tail = 0
        if capacity > Self.keptCapacity, let queue {
            queue.deallocate()  // holds no initialized slot: head == tail
            self.queue = nil
            capacity = 0
        }
    }

    /// Continuations of tasks freed while pending, waiting to be released by the outermost
    /// `release(_:)` on this thread.
    @exclusivity(unchecked) private var graveyard: [KitContinuation] = []
    @exclusivity(unchecked) private var releasing = false

    /// Releases the continuations of a task freed while pending, in a loop instead of a
    /// recursion: a released continuation may hold a derived task whose own deinit lands here
    /// again, and is then only queued (C8.2: a long pending chain is freed in constant stack).
    /// `jobs` is emptied first, so that the graveyard holds the only references while it drains.
    ///
    /// Which public paths still get here: since C8.3 a released source completes its task, a
    /// dropped `run` job fails its task and a dropped prepared task is cancelled, so a dropped
    /// chain is completed and delivered, not freed pending (the harness's dropped-chain check
    /// never reaches this loop). One path remains: an executor that drops a continuation's job
    /// without running it (it breaks C7.3; `ClosureExecutor { _ in }` does) frees that derived
    /// task pending, with whatever was registered on it. `StackDepthTests`' "chain dropped by an
    /// executor" frees a million links that way on a 512 KiB stack; a `TaskCore.deinit` that let
    /// its continuations go directly overflows there (and passes every other check).
    func release(_ jobs: inout KitContinuations) {
        graveyard.append(contentsOf: jobs.all)
        jobs = .empty
        if releasing { return }
        releasing = true
        while let job = graveyard.popLast() {
            _ = consume job
        }
        if graveyard.capacity > Self.keptCapacity { graveyard = [] }
        releasing = false
    }

    /// The calling thread's runtime, made on first use and freed when the thread exits.
    public static var current: ThreadRuntime {
        unmanagedCurrent.takeUnretainedValue()
    }

    /// The calling thread's runtime without a retain. Safe to use on the calling thread for as
    /// long as the thread runs: the thread-specific key holds a reference until the thread exits.
    @inline(__always)
    static var unmanagedCurrent: Unmanaged<ThreadRuntime> {
        if let pointer = pthread_getspecific(runtimeKey) {
            return Unmanaged<ThreadRuntime>.fromOpaque(pointer)
        }
        return makeCurrent()
    }

    @inline(never)
    private static func makeCurrent() -> Unmanaged<ThreadRuntime> {
        let runtime = ThreadRuntime()
        // The key's destructor releases this retain when the thread exits.
        let retained = Unmanaged.passRetained(runtime)
        pthread_setspecific(runtimeKey, retained.toOpaque())
        return retained
    }

    /// `trampoline(_:)` on the calling thread's runtime, without retaining it (see
    /// `unmanagedCurrent`): for a caller that does not have the runtime at hand. `work` is moved
    /// out (it is left `.taken`): the closure cannot consume it.
    @inline(__always)
    static func trampolineHere(_ work: inout Work) {
        unmanagedCurrent._withUnsafeGuaranteedRef { $0.trampoline(exchange(&work, with: .taken)) }
    }
}

/// The thread-specific key behind `ThreadRuntime.current`; created once, never deleted.
private let runtimeKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { pointer in
        guard let pointer else { return }
        Unmanaged<ThreadRuntime>.fromOpaque(pointer).release()
    }
    return key
}()
