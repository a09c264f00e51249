import ScheduleKit
import Synchronization
import TaskAPI

extension KitBackend {
    /// Starts `body` at once on `executor` (C3.1, C3.2, C4.3): TaskAPI's default `run`, on the
    /// kit's task. The task keeps the body (`RunTask`); the executor gets a closure that holds
    /// one reference and nothing else (`RunJob.schedule`): the task itself on a kit queue
    /// executor, which runs every job it is pushed, else a `RunJob`. An executor that drops the
    /// job without running it releases the `RunJob`, which fails the task with
    /// `TaskError.abandoned` (C8.3), exactly as a dropped source does.
    ///
    /// Why not TaskAPI's default: it completes the task through `any CompletionSource<T>` with a
    /// `Completion<T>`, and in unspecialized code every generic type costs a runtime metadata
    /// lookup; a fan-out of 100,000 bodies spent about a fifth of its instructions there. Here
    /// the value goes from the body straight into the task's slot; the task is made and returned
    /// by its maker (`RunTaskMakers`), without the runtime's lookups; and a `run` costs
    /// one allocation on a kit queue executor (the task), two on any other (the task and its
    /// job).
    @_disfavoredOverload
    public func run<T: Sendable>(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ body: @escaping @Sendable (CancellationToken) throws -> T
    ) -> any AsyncTask<T> {
        let made = RunTaskMakers.withMaker(of: T.self) { maker in
            maker.make(owner: self, token: token, on: executor, body)
        }
        if let made { return made }
        let task = RunTask<T>.started(owner: self, token: token, on: executor, body)
        RunTaskMakers.record(T.self)
        return task
    }
}

/// A `run`'s task: it keeps the body until the body starts, and the `whenAll` it reports to
/// first, if any, until it completes.
final class RunTask<T: Sendable>: KitTask<T>, @unchecked Sendable {
    // @unchecked: `body` is written in init, before the task is shared; after that only under
    // the core's lock, where one call moves it out (`runBody`, `dropBody`). `startGuard` is
    // written before the task is shared and only read after. `join` and `joinIndex` are
    // written under the core's lock by `storeJoin`, before the task completes; after the
    // completion (whose critical section publishes them), only the delivery that completion
    // started reads and clears them (`runInline`), or deinit, as `SourceTask`'s inline body.
    private var body: (@Sendable (CancellationToken) throws -> T)?
    /// `nil` when the token can never be cancelled (the common case); else it holds the token.
    private var startGuard: StartGuard?
    /// The join of a `whenAll` that registered on this task first, kept in place of a
    /// `JoinSlot` node (`TaskCore.join(_:at:on:)`): a fan-out's inputs join with no allocation
    /// each.
    @exclusivity(unchecked) private var join: KitJoinBase?
    /// This task's index among `join`'s inputs.
    @exclusivity(unchecked) private var joinIndex = 0
    /// The waker of the first `await` of this task's value, kept in the task's own fields
    /// (`ownAwaiter()`): the state of its resumption, `AwaitResumption.unclaimed` until an
    /// `await` claims it, and the awaiting Swift task's continuation, as `AwaitResumption` says.
    /// The task registers itself as that waker: no `ValueResumer` to allocate and free (about 340
    /// instructions per pending `await` with the allocator's cost of a chunk freed on another
    /// thread, callgrind, docs/BENCHMARKS.md, "The pending `await`, ninth session").
    private let awaiterState = ScheduledAtomic<UInt8>(AwaitResumption.unclaimed)
    @exclusivity(unchecked) private var awaiter: UnsafeContinuation<KitCompletion, any Error>?

    /// Required, so that its maker (`RunTaskMakerOf`) can make one from its generic argument,
    /// with no lookup of the class's metadata. `token` is borrowed: the task keeps it only when it can
    /// be cancelled (in its guard).
    required init(
        owner: any KitBackend, token: borrowing CancellationToken, body: @escaping @Sendable (CancellationToken) throws -> T
    ) {
        self.body = consume body
        super.init(owner: consume owner)
        if token.canBeCancelled { startGuard = StartGuard(for: self, token: copy token) }
    }

    /// Only the call that moves the task from pending to running takes the body and starts it
    /// (C4.3; an executor that wrongly runs a job twice starts it once). A call that does not
    /// (the token won, or the task was completed meanwhile) lets the body go (C8.1).
    override func runBody() {
        var taken: (@Sendable (CancellationToken) throws -> T)?
        // Copied and cleared rather than `take()`n or swapped: the generic `take` moves the
        // closure through the most general abstraction, a thunk allocated each way, and `swap`
        // looked up the closure type's metadata (callgrind).
        // No guard (a token that can never be cancelled, the common case): the status alone
        // decides, without `startBody`'s binding of the guard, which released a `nil` per start.
        let started =
            startGuard == nil
            ? tryStart {
                taken = body
                body = nil
            }
            : startBody(startGuard) {
                taken = body
                body = nil
            }
        guard started else { return dropBody() }
        // The start moved the task out of pending, which only this call and `dropBody`'s caller
        // (a job that never ran) race for: the body is still there.
        guard let body = consume taken else {
            assertionFailure("kit task: a run task started without its body")
            return
        }
        // A token that can never be cancelled is `.none`: no guard was made for it.
        let token = startGuard?.token ?? .none
        settle { try body(token) }
    }

    /// A pending task for `body`, its job handed to `executor`: `run`'s, through the maker of
    /// its `T` (`RunTaskMakerOf`). Made from `self`, the metatype the maker passes: no lookup of
    /// the class's metadata.
    static func started(
        owner: any KitBackend, token: borrowing CancellationToken, on executor: any AsyncTaskExecutor,
        _ body: @escaping @Sendable (CancellationToken) throws -> T
    ) -> RunTask<T> {
        let task = self.init(owner: owner, token: token, body: body)
        RunJob.schedule(task, on: executor)
        return task
    }

    override func dropBody() {
        withLock { body = nil }
    }

    override func ownAwaiter() -> (any KitAwaiter)? {
        // Relaxed: the claim only picks the one `await` that uses the fields; arming publishes
        // them (`AwaitResumption`).
        guard
            awaiterState.compareExchange(
                expected: AwaitResumption.unclaimed, desired: AwaitResumption.empty,
                successOrdering: .relaxed, failureOrdering: .relaxed
            ).exchanged
        else { return nil }
        return self as TaskCore
    }

    override func armAwaiter(_ continuation: UnsafeContinuation<KitCompletion, any Error>) {
        AwaitResumption.arm(
            continuation, waker: self, on: self, state: awaiterState, load: { awaiter }, store: { awaiter = $0 })
    }

    override func cancelAwait() {
        AwaitResumption.cancel(waker: self, on: self, state: awaiterState, load: { awaiter }, store: { awaiter = $0 })
    }

    /// This task completed, and it is its own awaiter's waker (registered on itself by
    /// `armAwaiter`, the only registration a `run`'s task is ever the continuation of): resume the
    /// awaiting Swift task, unless its cancellation came first.
    override func run(_ outcome: KitCompletion, from antecedent: TaskCore) {
        assert(antecedent === self, "kit task: a run's task handed the outcome of another task")
        AwaitResumption.resume(outcome, state: awaiterState, load: { awaiter }, store: { awaiter = $0 })
    }

    override var keepsJoin: Bool { true }

    override func storeJoin(_ join: KitJoinBase, at index: Int) {
        self.join = join
        joinIndex = index
    }

    override func runInline(_ outcome: KitCompletion) {
        // Called only by a delivery whose completion found the join kept (`KitState.holdsBody`).
        guard let join else {
            assertionFailure("kit task: a delivery ran the kept join of a task that kept none")
            return
        }
        self.join = nil  // C8.1: the join goes as soon as it has its report
        join.receive(outcome, from: self, at: joinIndex)
    }

    deinit {
        // Freed while keeping its join (a task is kept by its job until it completes, so no
        // path is known to get here): the join goes to the graveyard like any continuation,
        // since what it holds may hold a chain of its own (C8.2).
        guard let join else { return }
        var orphans = KitContinuations.one(JoinSlot(join, joinIndex))
        self.join = nil
        ThreadRuntime.current.release(&orphans)
    }
}

/// The job a `run` hands its executor. Released without having run, it fails the task with
/// `TaskError.abandoned` (C8.3). A job that ran disarms it first: the body completes the task, or
/// the token cancelled it, and a token handler that won the start gate may still be about to
/// complete it as cancelled, which an abandonment must not overtake. Not generic: no runtime
/// metadata lookup per `run`.
final class RunJob: Sendable {
    private let task: TaskCore
    private let ran = ScheduledAtomic<Bool>(false)

    init(_ task: TaskCore) {
        self.task = task
    }

    /// Hands the body of `task`, a `RunTask`, to `executor`. A kit queue executor runs each job
    /// it is pushed exactly once (`push`'s requirement, C7.3) and never drops one: it gets a
    /// closure that captures the task, and no `RunJob` guards it, one allocation less. Any other
    /// executor gets a closure that captures a `RunJob`. Each closure captures one non-generic
    /// reference, which is its own context: no allocation for it.
    @inline(__always)
    static func schedule(_ task: TaskCore, on executor: any AsyncTaskExecutor) {
        if HandOff.isQueueExecutor(executor) {
            unsafeDowncast(executor, to: KitQueueExecutor.self).push(JobRing.Slot { task.runBody() })
        } else {
            let job = RunJob(task)
            executor.execute { job.run() }
        }
    }

    func run() {
        ran.store(true, ordering: .relaxed)
        task.runBody()
    }

    deinit {
        // The releasing thread sees the job's store: releasing the last reference orders it.
        guard !ran.load(ordering: .relaxed) else { return }
        task.dropBody()
        _ = task.complete(.failure(TaskError.abandoned))
    }
}
