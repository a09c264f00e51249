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

/// One registration on a kit task, in a non-generic shape: where to run, and what to call.
public struct Job: Sendable {
    /// `nil` for a waker of `wait()` or `value`: called directly at completion, never through an
    /// executor; it only signals a thread or resumes a continuation.
    let executor: (any Executor)?
    let body: JobBody

    /// `body` gets the outcome and the task it completed (a `KitTask<T>` of the registering
    /// task's `T`), whose slot holds the value on a success.
    init(executor: (any Executor)?, _ body: @escaping @Sendable (Outcome, TaskCore) -> Void) {
        self.executor = executor
        self.body = .closure(body)
    }

    init(executor: any Executor, node: any ContinuationNode) {
        self.executor = executor
        body = .node(node)
    }

    /// A waker: a node run directly at completion, never through an executor.
    init(waker node: any ContinuationNode) {
        executor = nil
        body = .node(node)
    }
}

/// What a job runs: a closure, or a node that is itself the task the continuation completes,
/// which saves the closure's allocation (`map`, `continueWith`).
enum JobBody: Sendable {
    case closure(@Sendable (Outcome, TaskCore) -> Void)
    case node(any ContinuationNode)

    @inline(__always)
    func callAsFunction(_ outcome: Outcome, _ antecedent: TaskCore) {
        switch self {
        case .closure(let body): body(outcome, antecedent)
        case .node(let node): node.run(outcome, from: antecedent)
        }
    }
}

/// A derived task that runs its own continuation body when its antecedent completes.
protocol ContinuationNode: AnyObject, Sendable {
    /// Runs once, with the antecedent's outcome, on the executor the continuation was registered
    /// with. `antecedent` is the task the node was registered on: a `KitTask<T>` of the `T` the
    /// node was made for, whose slot holds the value when `outcome` is a success.
    func run(_ outcome: Outcome, from antecedent: TaskCore)
}

/// Hands one job to its executor (C2.3, C2.5), from a delivery running on the thread's
/// trampoline: wakers and inline jobs run at once (the trampoline queues whatever they complete
/// in turn, so nothing nests deeper than one job, C2.7), the backend's own queueing executors
/// get the job directly, and any other executor is called directly too: one that runs the job
/// synchronously adds one level, no more.
enum HandOff {
    @inline(__always)
    static func run(_ job: Job, _ outcome: Outcome, _ antecedent: TaskCore, owner: any KitBackend) {
        let body = job.body
        guard let executor = job.executor, executor !== InlineExecutor.shared else {
            body(outcome, antecedent)
            return
        }
        let bound: @Sendable () -> Void = { body(outcome, antecedent) }
        if owner.enqueueDirectly(bound, on: executor) { return }
        executor.execute(bound)
    }
}
