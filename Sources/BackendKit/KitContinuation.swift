import Synchronization
import TaskAPI

/// One registration on a kit task (C2.1), in a non-generic shape: where to run, and what to run,
/// in one object. A derived task (`map`, `continueWith`) is its own registration (`TaskCore` is a
/// `KitContinuation`), so registering it allocates nothing beyond the task; the other
/// registrations are small nodes that carry their body (`WhenComplete`, `Waiter`, ...).
/// Storing, copying and handing over a registration is one reference, one retain.
public class KitContinuation: @unchecked Sendable {
    // @unchecked: the class is not final, which the checker cannot verify; it stores nothing.
    // Subclasses that run on an executor store it themselves: a waker, an inline node and a
    // source's task carry no executor field (16 bytes less per task and per node).

    /// Hands the continuation over (C2.3, C2.5), from a delivery running on the thread's
    /// trampoline, in one virtual call: here it runs at once on the delivering thread, as a waker
    /// of `wait()` or `value` does (it only signals a thread or resumes a continuation), or a
    /// node registered on the inline executor. The subclasses that can run elsewhere store their
    /// executor (`nil` for the inline one, see `stored(_:)`, so that handing over needs no
    /// identity check and registering no retain of it) and override this with `HandOff`.
    /// `runtime` is the delivering thread's, whose trampoline runs the delivery: a derived task
    /// that runs here completes onto it without looking it up (`run(_:from:on:)`).
    func handOff(_ outcome: KitCompletion, from antecedent: TaskCore, on runtime: ThreadRuntime) {
        run(outcome, from: antecedent)
    }

    @inline(__always)
    init() {}

    /// Whether this is a waker: a `ValueResumer` (`await`) or a `Waiter` (`wait()`), the only
    /// registrations whose `run` does no more than resume a Swift continuation or signal a
    /// thread, safe from any thread at any time. A lone one is woken by the completion itself,
    /// outside any delivery phase (`TaskCore.complete`). Overridden by the two, not a test of
    /// the class: comparing the class with theirs called both metadata accessors on every
    /// completion with one continuation, a chain's every link (+36 instructions per pending
    /// inline link, callgrind), where a virtual call costs a few.
    var isWaker: Bool { false }

    /// What a subclass stores as its executor: `nil` for the inline executor.
    @inline(__always)
    static func stored(_ executor: any AsyncTaskExecutor) -> (any AsyncTaskExecutor)? {
        // A type test rather than `!== InlineExecutor.shared`: the class has one instance (its
        // initializer is private), and reading the static costs a once-check per node.
        type(of: executor) == InlineExecutor.self ? nil : executor
    }

    /// Runs once, with the antecedent's outcome, on the executor the continuation was registered
    /// with. `antecedent` is the task it was registered on: a `KitTask<T>` of the `T` the
    /// continuation was made for, whose slot holds the value when `outcome` is a success.
    /// Usable from inlinable code: a queued hand-off runs it (`JobRing.Slot.run`).
    @usableFromInline
    func run(_ outcome: KitCompletion, from antecedent: TaskCore) {}

    /// `run` on a thread whose runtime the caller has at hand, `runtime`: a derived task
    /// completes onto its trampoline without the thread-specific lookup (`pthread_getspecific`
    /// and its key's once-check, 24 instructions per link, callgrind). Only the calling thread's
    /// runtime may be passed (only its own thread touches a runtime). Usable from inlinable code,
    /// as `run(_:from:)` (`JobRing.Slot.run(on:)`).
    @usableFromInline
    func run(_ outcome: KitCompletion, from antecedent: TaskCore, on runtime: ThreadRuntime) {
        run(outcome, from: antecedent)
    }

    /// `run` for a derived task that no other thread can reach yet (`TaskCore.registerFresh`):
    /// it may start and complete itself without its lock.
    func runFresh(_ outcome: KitCompletion, from antecedent: TaskCore) {
        run(outcome, from: antecedent)
    }
}

/// `whenComplete`'s registration on the inline executor: the body, typed, and nothing else.
class WhenComplete<T: Sendable>: KitContinuation, @unchecked Sendable {
    // @unchecked: not final (`WhenCompleteOn` adds an executor); `body` is a `let` of a Sendable
    // type.
    private let body: @Sendable (Completion<T>) -> Void

    init(body: @escaping @Sendable (Completion<T>) -> Void) {
        self.body = body
    }

    override final func run(_ outcome: KitCompletion, from antecedent: TaskCore) {
        // Registered on a KitTask<T> (see `KitContinuation.run`).
        body(antecedent.kitTask(of: T.self).typed(outcome))
    }
}

/// `whenComplete`'s registration on any other executor.
final class WhenCompleteOn<T: Sendable>: WhenComplete<T>, @unchecked Sendable {
    // @unchecked: restated; `target` is a `let` of a Sendable type.
    private let target: any AsyncTaskExecutor

    init(executor: any AsyncTaskExecutor, body: @escaping @Sendable (Completion<T>) -> Void) {
        target = executor
        super.init(body: body)
    }

    override func handOff(_ outcome: KitCompletion, from antecedent: TaskCore, on runtime: ThreadRuntime) {
        HandOff.enqueue(self, outcome, antecedent, on: target)
    }
}

/// Hands one continuation to its executor (C2.3, C2.5), from a delivery running on the thread's
/// trampoline (`KitContinuation.handOff`): wakers and inline continuations run at once (the
/// trampoline queues whatever they complete in turn, so nothing nests deeper than one, C2.7);
/// any other executor gets the job through its `execute`: one that runs the job synchronously
/// adds one level, no more, since whatever the job completes is queued on the trampoline.
enum HandOff {
    /// The hand-off to an executor, out of line: the inline path stays small. A kit executor
    /// (`KitQueueExecutor`) queues the continuation as it is; any other gets a closure.
    @inline(never)
    static func enqueue(
        _ continuation: KitContinuation, _ outcome: KitCompletion, _ antecedent: TaskCore,
        on executor: any AsyncTaskExecutor
    ) {
        // A class test (below), not a protocol cast; then a downcast with no check, which,
        // unlike `as?`, retains and releases nothing.
        if isQueueExecutor(executor) {
            unsafeDowncast(executor, to: KitQueueExecutor.self).push(
                JobRing.Slot(handOff: continuation, outcome, from: antecedent))
        } else {
            executor.execute { continuation.run(outcome, from: antecedent) }
        }
    }

    /// The class of the last executor found to be a `KitQueueExecutor`, as its metadata's
    /// address (0 before the first): a hand-off to an executor of that class, the common case (a
    /// backend's default executor, hop after hop), is recognized by one comparison instead of
    /// the runtime's walk up the class chain (`swift_dynamicCastClass` and the metadata
    /// accessor, 24 instructions per hand-off, callgrind). Relaxed: any value read is the class
    /// of some `KitQueueExecutor`, and a class's metadata lives as long as the process, so a
    /// stale one only sends the test down the walk.
    private static let lastQueueClass = Atomic<UInt>(0)

    /// Whether `executor` is a `KitQueueExecutor`.
    @inline(__always)
    static func isQueueExecutor(_ executor: any AsyncTaskExecutor) -> Bool {
        let type = UInt(bitPattern: ObjectIdentifier(Swift.type(of: executor)))
        if type == lastQueueClass.load(ordering: .relaxed) {
            assert(executor is KitQueueExecutor, "kit hand-off: \(Swift.type(of: executor)) taken for a queue executor")
            return true
        }
        guard executor is KitQueueExecutor else { return false }
        lastQueueClass.store(type, ordering: .relaxed)
        return true
    }
}
