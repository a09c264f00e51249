/// The checker's side of schedule points: what a controlled run (the conformance harness's, or an
/// outside checker's) implements, and installs with `SchedulePoint.install(_:)`.
///
/// While one is installed, every thread that runs part of the run is a **seat**
/// (`ScheduleSeat`), and the checker lets one seat run at a time: each synchronization of
/// ScheduleKit's primitives (`Locked`, `ConditionLock`, `ScheduledAtomic`, `SchedulePoint.reach()`,
/// the hand-offs `SchedulePoint.fork(_:)` and `adopt(_:_:)`) is a point where the checker may
/// let another seat go first, and a seat that finds a lock taken, or waits on a condition, is
/// blocked until the lock is released or the condition signalled. Threads that are no seat run
/// natively: their primitives behave exactly as with nothing installed, except that a release
/// or a signal is told to the controller (a seat may be blocked on it).
///
/// The controller answers for the process; each seat answers for its own thread.
public protocol ScheduleController: AnyObject, Sendable {
    /// A lock was released by a thread that is no seat: seats blocked on it may retry.
    func lockReleased(_ lock: SchedulePoint.Object)
    /// A condition was signalled by a thread that is no seat: seats waiting on it wake (`all`),
    /// or one does.
    func conditionSignalled(_ condition: SchedulePoint.Object, all: Bool)
    /// A thread that waited natively on `condition` (no seat at the time: it waited since before
    /// the run) came back from its wait, holding `lock`. If a seat's signal woke it, the seat it
    /// is from now on, returned once that seat may run (until the run ends, or the thread: it
    /// then leaves the seat, `ScheduleSeat.leave()`); `nil` otherwise (the thread goes on
    /// natively).
    func adoptWoken(by condition: SchedulePoint.Object, holding lock: SchedulePoint.Object) -> (any ScheduleSeat)?
}

/// One thread of a controlled run, as its checker sees it: ScheduleKit's primitives tell it each
/// synchronization the thread makes, in its thread, and it parks the thread (returns later) until
/// the checker's schedule lets the thread go on.
///
/// A seat whose `controlsSynchronization` is `false` (a checker that only parks threads at plain
/// `SchedulePoint.reach()` points, or a seat whose run is over) gets only `pointReached(.plain, _)`:
/// the primitives then behave natively on its thread.
public protocol ScheduleSeat: AnyObject, Sendable {
    /// Whether the primitives go through this seat (locks by try-lock, condition waits as seat
    /// blocks, hand-offs as tickets, time as `now`); `false`: natively.
    var controlsSynchronization: Bool { get }
    /// A point: the checker may let another seat run first. `label` says where (for reports).
    func pointReached(_ kind: SchedulePoint.Kind, label: StaticString)
    /// The thread holds `lock` now (its try-lock succeeded).
    func lockAcquired(_ lock: SchedulePoint.Object, label: StaticString)
    /// The thread found `lock` taken: the seat registers it as blocked on `lock`, then calls
    /// `isTaken` (which looks at the lock again, without keeping it); returns at once if the lock
    /// is free by then, else once it may try again (the lock was released, or the run is over).
    ///
    /// Register before the second look: a thread that is no seat may release the lock between
    /// the thread's try-lock and the registration (`ScheduleController.lockReleased`), and would
    /// find no seat blocked on it; the look after the registration sees that release, and a
    /// release after it finds the seat blocked. (Order the look after the registration, and the
    /// controller's read of the registrations after the release, as for any store then load on
    /// two threads: a sequentially consistent fence on each side.)
    func lockBusy(_ lock: SchedulePoint.Object, label: StaticString, isTaken: () -> Bool)
    /// The thread released `lock`; then a point.
    func lockReleased(_ lock: SchedulePoint.Object, label: StaticString)
    /// The thread, holding `lock` (which guards `condition`), waits on `condition`: the seat
    /// registers it as a waiter, then calls `unlock` exactly once (it releases `lock` natively),
    /// then returns once signalled (`true`), or once `deadline` (`now`'s nanoseconds) has passed
    /// for the run (`false`), or when the run is over (`true`: a spurious wake-up). It calls
    /// `unlock` on every path, before it returns. The thread then takes the lock again, through
    /// `lockAcquired`/`lockBusy`.
    ///
    /// Register before `unlock`, as `pthread_cond_wait` releases the lock and waits in one step: a
    /// thread that takes the lock once it is free, changes what the waiter checked and signals
    /// (another seat, or a thread that is no seat, `ScheduleController.conditionSignalled`) must
    /// find the waiter registered; registered after, its signal finds none and is lost, and the
    /// seat sleeps until another signal or its deadline, where the native code would have woken.
    func conditionWait(
        _ condition: SchedulePoint.Object, releasing lock: SchedulePoint.Object,
        deadline: UInt64?, label: StaticString, unlock: () -> Void
    ) -> Bool
    /// A point, then `condition` (guarded by `lock`) is signalled (`all`: broadcast): seats waiting
    /// on it wake, or one does. `nativeWaiters` threads (no seats) sleep on it natively; the
    /// primitive wakes them natively after this returns, and each one a seat's signal wakes
    /// becomes a seat once it has taken `lock` again (`ScheduleController.adoptWoken`).
    func conditionSignal(
        _ condition: SchedulePoint.Object, lock: SchedulePoint.Object, all: Bool,
        nativeWaiters: Int, label: StaticString)
    /// Work handed to a thread the checker does not own (`SchedulePoint.fork`): a ticket for the
    /// receiving thread to adopt, or `nil` (the work then runs natively). `label` names the work.
    func fork(_ arrival: SchedulePoint.Arrival, label: StaticString) -> (any ScheduleTicket)?
    /// The thread, a seat of a ticket (`SchedulePoint.adopt`), is done with it; or the thread, a
    /// seat since a native wake-up (`ScheduleController.adoptWoken`), ends (a pool's surplus
    /// worker exiting): called from the thread's exit, holding the baton it held at its last
    /// point.
    func leave()
    /// The run's clock (monotonic nanoseconds): what `MonotonicClock.now` answers on this thread.
    var now: UInt64 { get }
}

/// Work handed to another thread under a controlled run (`SchedulePoint.fork`): the receiving
/// thread becomes a seat for as long as it runs the work (`SchedulePoint.adopt`).
public protocol ScheduleTicket: AnyObject, Sendable {
    /// The receiving thread arrives: the seat it is, returned once that seat may run; `nil` if the
    /// run is over (the work then runs natively). A ticket arrives once: a second arrival is a
    /// job run twice, which the checker reports.
    func arrive() -> (any ScheduleSeat)?
    /// The work will not run, legitimately (a timer disposed before it fired): the checker stops
    /// expecting its arrival. A ticket released without arriving or being withdrawn is work
    /// dropped, which the checker reports.
    func withdraw()
}
