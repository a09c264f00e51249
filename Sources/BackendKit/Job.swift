import TaskAPI

/// What a backend built on the kit contributes: its executors, and how a job is handed to them.
/// Everything else (task state, continuations, trampoline, waiting, await) is the kit's.
public protocol KitBackend: TaskBackend, AnyObject {
    /// Hands `job` to `executor` if it is one of this backend's executors that never runs a job
    /// inside the call (C2.3), and returns `true`; returns `false`, touching nothing, for any
    /// other executor. The kit then calls `executor.execute` from the thread's trampoline, so
    /// that an executor running jobs synchronously cannot turn a long chain into a recursion
    /// (C2.7). The inline executor never reaches this call.
    func enqueueDirectly(_ job: @escaping @Sendable () -> Void, on executor: any Executor) -> Bool
}

/// A kit task's outcome without its value: `.success(())` means the value is in the
/// `KitTask<T>`'s slot (stored before the outcome is published), failure and cancellation are
/// complete as they are. Non-generic, so the core's state never boxes a value or looks up
/// generic metadata.
typealias Outcome = Completion<Void>

/// One registration on a kit task (C2.1), in a non-generic shape: where to run, and what to run,
/// in one object. A derived task (`map`, `continueWith`) is its own registration (`TaskCore` is a
/// `KitContinuation`), so registering it allocates nothing beyond the task; the other
/// registrations are small nodes that carry their body (`WhenComplete`, `Waiter`, ...).
/// Storing, copying and handing over a registration is one reference, one retain.
public class KitContinuation: @unchecked Sendable {
    // @unchecked: the class is not final, which the checker cannot verify; its only stored
    // property is a `let` of a Sendable type.

    /// Where the continuation runs; `nil` when it runs directly on the delivering thread: a waker
    /// of `wait()` or `value` (it only signals a thread or resumes a continuation), or a
    /// continuation registered on the inline executor, stored as `nil` so that handing it over
    /// needs no identity check, and registering it no retain of the executor.
    let executor: (any Executor)?

    @inline(__always)
    init(executor: (any Executor)?) {
        // A type test rather than `!== InlineExecutor.shared`: the class has one instance (its
        // initializer is private), and reading the static costs a once-check per node.
        if let executor, type(of: executor) != InlineExecutor.self {
            self.executor = executor
        } else {
            self.executor = nil
        }
    }

    /// Runs once, with the antecedent's outcome, on the executor the continuation was registered
    /// with. `antecedent` is the task it was registered on: a `KitTask<T>` of the `T` the
    /// continuation was made for, whose slot holds the value when `outcome` is a success.
    func run(_ outcome: Outcome, from antecedent: TaskCore) {}
}

/// `whenComplete`'s registration: the body, typed.
final class WhenComplete<T: Sendable>: KitContinuation, @unchecked Sendable {
    // @unchecked: restated; `body` is a `let` of a Sendable type.
    private let body: @Sendable (Completion<T>) -> Void

    init(executor: any Executor, body: @escaping @Sendable (Completion<T>) -> Void) {
        self.body = body
        super.init(executor: executor)
    }

    override func run(_ outcome: Outcome, from antecedent: TaskCore) {
        // Registered on a KitTask<T> (see `KitContinuation.run`).
        body(unsafeDowncast(antecedent, to: KitTask<T>.self).typed(outcome))
    }
}

/// Hands one continuation to its executor (C2.3, C2.5), from a delivery running on the thread's
/// trampoline: wakers and inline continuations run at once (the trampoline queues whatever they
/// complete in turn, so nothing nests deeper than one, C2.7), the backend's own queueing
/// executors get the job directly, and any other executor is called directly too: one that runs
/// the job synchronously adds one level, no more.
enum HandOff {
    @inline(__always)
    static func run(_ continuation: KitContinuation, _ outcome: Outcome, _ antecedent: TaskCore) {
        guard let executor = continuation.executor else {
            continuation.run(outcome, from: antecedent)   // a waker, or the inline executor
            return
        }
        enqueue(continuation, outcome, antecedent, on: executor)
    }

    /// The hand-off to an executor, out of line: the inline path above stays small.
    @inline(never)
    static func enqueue(_ continuation: KitContinuation, _ outcome: Outcome, _ antecedent: TaskCore,
                        on executor: any Executor) {
        let bound: @Sendable () -> Void = { continuation.run(outcome, from: antecedent) }
        if antecedent.owner.enqueueDirectly(bound, on: executor) { return }
        executor.execute(bound)
    }
}
