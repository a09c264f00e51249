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
///
/// The body waits in the value slot, as a derived task's does (`DerivedTask`), not in a field of
/// its own: moved out by the start, or by a completion that comes first (the token's handler, or
/// the job's abandonment), which lets it go (`dropKeptBody`). So a `RunTask<Int>` takes 88 bytes,
/// a malloc chunk of 96, not 104 in a chunk of 112.
final class RunTask<T: Sendable>: KitTask<T>, @unchecked Sendable {
    // @unchecked: the body is in the core's slot, written in init, before the task is shared;
    // after that moved out only under the core's lock (`runBody`, `dropBody`, or the completion).
    // `startGuard` is written before the task is shared and only read after. `join` and
    // `joinIndex` are written under the core's lock by `storeJoin`, before the task completes;
    // after the completion (whose critical section publishes them), only the delivery that
    // completion started reads and clears them (`runInline`), or deinit, as `SourceTask`'s
    // inline body.
    typealias Body = @Sendable (CancellationToken) throws -> T

    /// `nil` when the token can never be cancelled (the common case); else it holds the token.
    private var startGuard: StartGuard?
    /// The join of a `whenAll` that registered on this task first, kept in place of a
    /// `JoinSlot` node (`TaskCore.join(_:at:)`): a fan-out's inputs join with no allocation
    /// each.
    @exclusivity(unchecked) private var join: KitJoinBase?
    /// This task's index among `join`'s inputs.
    @exclusivity(unchecked) private var joinIndex = 0

    /// Required, so that `started` can make one from the metatype its maker passes
    /// (`RunTaskMakerOf`), with no lookup of the class's metadata. `token` is borrowed: the task
    /// keeps it only when it can be cancelled (in its guard).
    required init(owner: any KitBackend, token: borrowing CancellationToken, body: @escaping Body) {
        super.init(owner: consume owner)
        // Safe: the slot is empty (the task is pending, no value, no error), two words of the
        // closure's size and alignment (asserted by `keep`), and only this class reads it as a
        // `Body`, until the start or a completion moves it out.
        Self.keep(consume body, at: &slot)
        assert(keepsBody, "kit task: a run task's body reads as an empty slot")
        if token.canBeCancelled { startGuard = StartGuard(for: self, token: copy token) }
    }

    /// Only the call that moves the task from pending to running takes the body and starts it
    /// (C4.3; an executor that wrongly runs a job twice starts it once). A call that does not
    /// (the token won, or the task was completed meanwhile) lets the body go (C8.1).
    override func runBody() {
        // The body's words, moved out of the slot in the critical section of the start.
        var words: (UInt, UInt) = (0, 0)
        guard startBody(startGuard, taking: { words = takeKeptBody() }) else { return dropBody() }
        // The start moved the task out of pending, which only this call and a completion race
        // for, and a completion moves the body out only while the task is pending: it was there.
        guard let body = Self.body(movedFrom: &words) else {
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
        // Still pending (the token's handler won the start but has not completed the task yet):
        // the body is in the slot. Completed: the completion took it. Let go after the lock, so
        // that no deinit of its captures runs under it.
        var words: (UInt, UInt) = (0, 0)
        withLock { if keepsBody { words = takeKeptBody() } }
        if words != (0, 0) { dropKeptBody(words) }
    }

    override func dropKeptBody(_ words: (UInt, UInt)) {
        var owned = words
        Self.drop(&owned)
    }

    // The body's words, as an optional body, as `DerivedTask` keeps its own (see there why
    // through `pointee`): all-zero words read as `nil`. Through a struct whose field has the
    // body's own type (`KeptBody`): a closure stored where a pointer's generic `Pointee` is its
    // optional type is reabstracted, its token passed indirectly through a thunk allocated per
    // task (callgrind); a struct's field keeps the closure's natural form.

    /// The slot's words as this task reads them while it keeps its body.
    private struct KeptBody {
        var body: Body?
    }

    @inline(__always)
    private static func keep(_ body: __owned @escaping Body, at words: UnsafeMutableRawPointer) {
        assert(
            MemoryLayout<KeptBody>.size == MemoryLayout<(UInt, UInt)>.size
                && MemoryLayout<KeptBody>.alignment <= MemoryLayout<(UInt, UInt)>.alignment,
            "kit task: a run task's body does not fit the slot")
        words.assumingMemoryBound(to: KeptBody.self).pointee = KeptBody(body: consume body)
    }

    @inline(__always)
    private static func body(movedFrom words: UnsafeMutableRawPointer) -> Body? {
        let kept = words.assumingMemoryBound(to: KeptBody.self)
        let body = kept.pointee.body
        kept.pointee.body = nil
        return body
    }

    @inline(__always)
    private static func drop(_ words: UnsafeMutableRawPointer) {
        words.assumingMemoryBound(to: KeptBody.self).pointee.body = nil  // C8.1: the closure and its captures go
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
        // Freed before its body started (no path is known to get here: the job holds the task
        // until it runs, and a job dropped unrun completes it): the body goes now.
        if keepsBody { dropKeptBody(takeKeptBody()) }
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
