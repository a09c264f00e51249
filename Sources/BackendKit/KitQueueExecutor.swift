import TaskAPI

/// An executor whose jobs wait in a queue of its own (a `JobRing`) for the threads of a pool: the
/// default executors of the kit's backends. A subclass implements `push`, which both `execute`
/// and the kit's hand-offs call.
///
/// A continuation handed to a queue executor (`HandOff`) is queued as it is, with the task it
/// was registered on and that task's outcome (`JobRing.Slot`). `execute` would take a closure
/// capturing the three: an allocation, its initialization, and the retains and releases of its
/// captures per hop (docs/BENCHMARKS.md has the counts). The kit recognizes such an executor by a
/// class test, a walk up the class chain; a protocol cast would cost a lookup in the runtime's
/// conformance cache.
open class KitQueueExecutor: AsyncTaskExecutor, @unchecked Sendable {
    // @unchecked: not final (each backend subclasses it); its one property is a `let` of a
    // Sendable type.

    /// The pool whose threads run the jobs: `isCurrent` is `true` on a thread that records it as
    /// its pool (`ThreadRuntime.pool`), which the pool's threads do while they run its jobs.
    public final let runner: any BlockingPool

    /// An executor whose jobs the threads of `runner` run.
    public init(runner: any BlockingPool) {
        self.runner = runner
    }

    /// Queues `job`: it must run exactly once (C7.3), on a thread that records `runner` as its
    /// pool while it runs. Every subclass overrides it; this class has no queue of its own.
    open func push(_ job: consuming JobRing.Slot) {
        preconditionFailure("KitQueueExecutor: \(type(of: self)) pushed a job without overriding push(_:)")
    }

    /// Runs `job` exactly once (C7.3), through `push`.
    public final func execute(_ job: @escaping @Sendable () -> Void) {
        push(JobRing.Slot(job))
    }

    /// `true` on a thread running one of this executor's jobs (C9.7).
    public final var isCurrent: Bool { ThreadRuntime.current.pool === runner }
}
