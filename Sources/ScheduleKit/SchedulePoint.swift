import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Schedule points, as loom and Shuttle place them in their synchronization primitives: every
/// synchronization of ScheduleKit's primitives is one, and so is `reach()`.
///
/// ScheduleKit's `Locked`, `ConditionLock` and `ScheduledAtomic` check one flag (`isActive`) on
/// every operation: one relaxed load and a branch that is always taken the same way while no
/// checker is installed. While one is (`install(_:)`, a `ScheduleController`: the conformance
/// harness installs one while a controlled run is active), each thread of the run is a seat
/// (`ScheduleSeat`) and its checker lets one seat run at a time: every lock, unlock, condition
/// wait, signal and atomic operation on a seat is a point where another seat may go first, and a
/// seat that finds a lock taken or waits on a condition is blocked (not a candidate) until the
/// lock is released or the condition signalled. So a race inside a backend operation, an executor,
/// a pool or a waiter (a lost wake-up, a job run twice, a missed notification) is found from a
/// seed and replayed exactly. A backend built on these primitives, whose threads come from
/// `fork`/`adopt` hand-offs, is **instrumented** (`TaskBackend.isScheduleInstrumented`).
///
/// Points may be reached holding an instrumented lock (another seat that wants it blocks
/// visibly); never holding a lock the checker cannot see (a `Synchronization.Mutex`, an
/// `NSLock`): a seat parked there would stop every seat that needs it.
///
/// `reach()` is the plain point, for code that synchronizes by other means: place one where a
/// thread could lose the processor to another in a way that matters (between a check and the
/// store that depends on it). On a thread that is no seat, every point returns at once.
public enum SchedulePoint {
    /// Whether a controller is installed: the only thing a primitive reads when none is.
    @usableFromInline static let active = Atomic<Bool>(false)
    /// In a class: an existential stored in a generic container is re-abstracted on the way in
    /// and out; and a class can be published through an atomic reference (`installedBox`).
    private final class ControllerBox: Sendable {
        let controller: any ScheduleController
        init(_ controller: any ScheduleController) { self.controller = controller }
    }
    /// Every box ever installed, kept for good: `installedBox` is read without a lock and
    /// without a retain, so a box must outlive every reader. One per controller object, reused
    /// when the same controller is installed again (the conformance harness installs its one
    /// controller at each first run that begins): the list grows only with distinct controllers.
    /// A plain `Mutex`, never an instrumented lock (the primitives read `installedBox`), taken
    /// by `install` and `uninstall` only; with `Locked`'s atomic edge beside it, which the thread
    /// sanitizer sees (see `Locked`).
    private static let installed = Mutex<[ControllerBox]>([])
    private static let installedEdge = Atomic<Int>(0)
    /// The installed controller's box, or `nil`: written under `installed`, read by any thread
    /// with one acquiring load (a thread that is no seat reads it at each release and signal
    /// while a controller is installed: a lock there was one the whole process queued on).
    private static let installedBox = Atomic<Unmanaged<ControllerBox>?>(nil)

    private static func withInstalled<R: Sendable>(_ body: (inout [ControllerBox]) -> R) -> R {
        installed.withLock { boxes in
            _ = installedEdge.load(ordering: .acquiring)
            defer { installedEdge.store(0, ordering: .releasing) }
            return body(&boxes)
        }
    }

    /// What kind of synchronization a point is, for the checker's reports.
    public enum Kind: Sendable, Hashable {
        /// `reach()`.
        case plain
        /// Before taking a lock.
        case lock
        /// After releasing a lock.
        case unlock
        /// Before signalling a condition.
        case signal
        /// Before an atomic operation of `ScheduledAtomic`.
        case atomic
        /// Before handing work to another thread (`fork`).
        case handOff
    }

    /// A lock's or a condition's identity while it exists: its address.
    public struct Object: Hashable, Sendable, CustomStringConvertible {
        public let address: UInt

        @inlinable
        public init(address: UInt) {
            self.address = address
        }

        /// The object's identity.
        @inlinable
        public init(_ object: AnyObject) {
            address = UInt(bitPattern: ObjectIdentifier(object))
        }

        public var description: String { "0x" + String(address, radix: 16) }
    }

    /// How work handed to a thread the checker does not own arrives there (`fork`).
    public enum Arrival: Sendable, Hashable {
        /// As soon as possible: a new thread, a block on a concurrent queue.
        case now
        /// In order behind the earlier work of the same lane, once that has ended: a block on a
        /// serial queue (`lane` names the queue).
        case lane(Object)
        /// At or after `deadline` (`MonotonicClock` nanoseconds): a timer's handler.
        case notBefore(UInt64)
    }

    // MARK: - Installing a checker

    /// Whether a controller is installed: a relaxed load of the flag, at an address the
    /// optimizer may keep (`activeFlag`).
    @inlinable @inline(__always)
    public static var isActive: Bool {
        scheduleActiveFlag().assumingMemoryBound(to: Atomic<Bool>.self).pointee.load(ordering: .relaxed)
    }

    /// Installs `controller`, replacing any installed one: from now on every primitive asks the
    /// calling thread's seat, if it has one.
    ///
    /// The process keeps every controller it installs for good, uninstalled or not: threads
    /// that are no seat read the installed one without a lock and without a retain, so none may
    /// be freed under them. Install one controller for the process, again for each run (as
    /// Conformance does), rather than a new one per run.
    public static func install(_ controller: any ScheduleController) {
        withInstalled { boxes in
            let box: ControllerBox
            if let known = boxes.first(where: { $0.controller === controller }) {
                box = known
            } else {
                box = ControllerBox(controller)
                boxes.append(box)
            }
            // Unretained: `installed` keeps every box for good.
            installedBox.store(Unmanaged.passUnretained(box), ordering: .releasing)
        }
        active.store(true, ordering: .releasing)
    }

    /// Removes the installed controller: the primitives are native again.
    public static func uninstall() {
        active.store(false, ordering: .releasing)
        withInstalled { _ in installedBox.store(nil, ordering: .releasing) }
    }

    /// Runs `body` with the installed controller, if any: one acquiring load, no lock, no
    /// retain. The store that installed it releases, so a thread that sees the box sees it
    /// initialized; a thread whose point happens after `install` returned sees it (or a later
    /// one).
    private static func withController<R>(_ body: (any ScheduleController) -> R?) -> R? {
        guard let box = installedBox.load(ordering: .acquiring) else { return nil }
        // The box is never freed (`installed`), so using it unretained is safe.
        return box._withUnsafeGuaranteedRef { body($0.controller) }
    }

    // MARK: - The calling thread's seat

    /// The calling thread's seat, if it is one (while a controller is installed).
    public static var current: (any ScheduleSeat)? {
        currentBox?.seat
    }

    /// The calling thread's box: its seat, and whether the thread leaves it when it ends.
    private static var currentBox: SeatBox? {
        guard let pointer = pthread_getspecific(seatKey) else { return nil }
        return Unmanaged<SeatBox>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// The calling thread's seat if the primitives go through it.
    @usableFromInline
    static var controllingSeat: (any ScheduleSeat)? {
        guard let seat = current, seat.controlsSynchronization else { return nil }
        return seat
    }

    /// Makes `seat` the calling thread's (`nil`: none); returns the one it replaces. A checker
    /// calls it on threads it starts itself (its drivers); threads that run handed-over work get
    /// theirs through `adopt`.
    @discardableResult
    public static func setCurrent(_ seat: (any ScheduleSeat)?) -> (any ScheduleSeat)? {
        setCurrentBox(seat.map { SeatBox($0, leavesAtExit: false) })?.seat
    }

    /// Makes `box` the calling thread's; returns the one it replaces.
    @discardableResult
    private static func setCurrentBox(_ box: SeatBox?) -> SeatBox? {
        let old = currentBox
        if let pointer = pthread_getspecific(seatKey) { Unmanaged<SeatBox>.fromOpaque(pointer).release() }
        // The key's destructor releases this retain if the thread exits holding it.
        pthread_setspecific(seatKey, box.map { UnsafeRawPointer(Unmanaged.passRetained($0).toOpaque()) })
        return old
    }

    // MARK: - Points

    /// A plain point: returns at once unless a checker is installed and the calling thread is one
    /// of its seats, which may be parked here for a while. `label` says where, for reports.
    @inlinable @inline(__always)
    public static func reach(_ label: StaticString = "SchedulePoint.reach") {
        if isActive { reached(.plain, label) }
    }

    /// A point of kind `kind` on the calling thread's seat, if any.
    @usableFromInline @inline(never)
    static func reached(_ kind: Kind, _ label: StaticString) {
        current?.pointReached(kind, label: label)
    }

    /// A point before an atomic operation of a seat (`ScheduledAtomic`).
    @usableFromInline @inline(never)
    static func atomicReached() {
        controllingSeat?.pointReached(.atomic, label: "ScheduledAtomic")
    }

    // MARK: - Locks

    /// Runs a critical section under checker control: on a seat, a point, then `attempt` (a
    /// try-lock that runs the section and returns its result if it got the lock, `nil` if the
    /// lock was taken; it calls `acquired` once it holds the lock) until it gets the lock, each
    /// failure blocking the seat until `lock` is released (`isTaken` looks at the lock without
    /// keeping it: see `ScheduleSeat.lockBusy`); then the release, and a point. On any other
    /// thread, `native` (the blocking form), then the release is told to the controller. What
    /// `Locked` does while `isActive`.
    @inlinable @inline(never)
    public static func withLock<R>(
        _ lock: Object, label: StaticString,
        native: () throws -> R,
        attempt: (_ acquired: () -> Void) throws -> R?,
        isTaken: () -> Bool
    ) rethrows -> R {
        guard let seat = controllingSeat else {
            defer { releasedOffSeat(lock) }
            return try native()
        }
        seat.pointReached(.lock, label: label)
        while true {
            let result: R?
            do {
                result = try attempt { seat.lockAcquired(lock, label: label) }
            } catch {
                seat.lockReleased(lock, label: label)
                throw error
            }
            if let result {
                seat.lockReleased(lock, label: label)
                return result
            }
            seat.lockBusy(lock, label: label, isTaken: isTaken)
        }
    }

    /// Takes a lock under checker control (`ConditionLock.lock()`): on a seat, a point, then
    /// `tryLock` until it succeeds, each failure blocking the seat until `lock` is released
    /// (`isTaken`: see `ScheduleSeat.lockBusy`). On any other thread, `lockNatively`.
    @usableFromInline @inline(never)
    static func acquire(
        _ lock: Object, label: StaticString, tryLock: () -> Bool, isTaken: () -> Bool, lockNatively: () -> Void
    ) {
        guard let seat = controllingSeat else { return lockNatively() }
        seat.pointReached(.lock, label: label)
        while !tryLock() { seat.lockBusy(lock, label: label, isTaken: isTaken) }
        seat.lockAcquired(lock, label: label)
    }

    /// `lock` was released (`ConditionLock.unlock()`): told to the seat (then a point), or, on
    /// any other thread, to the controller.
    @usableFromInline @inline(never)
    static func released(_ lock: Object, label: StaticString) {
        if let seat = controllingSeat {
            seat.lockReleased(lock, label: label)
        } else {
            releasedOffSeat(lock)
        }
    }

    @usableFromInline
    static func releasedOffSeat(_ lock: Object) {
        _ = withController { $0.lockReleased(lock) }
    }

    // MARK: - Conditions

    /// A signal under checker control: on a seat, a point and the seat's wake-ups; on any other
    /// thread, the controller's. The caller then signals natively.
    @usableFromInline @inline(never)
    static func signalled(_ condition: Object, lock: Object, all: Bool, nativeWaiters: Int, label: StaticString) {
        if let seat = controllingSeat {
            seat.conditionSignal(condition, lock: lock, all: all, nativeWaiters: nativeWaiters, label: label)
        } else {
            _ = withController { $0.conditionSignalled(condition, all: all) }
        }
    }

    /// A thread back from a native wait on `condition`, holding `lock`: becomes the seat a seat's
    /// signal made for it, if any, and leaves it when the thread ends (no `adopt` leaves it: a
    /// pool's worker that wakes, then finds itself surplus and exits, would otherwise leave its
    /// seat runnable, holding the baton, with no thread behind it, and the run would hang).
    @usableFromInline @inline(never)
    static func wokenNatively(by condition: Object, holding lock: Object) {
        guard let seat = withController({ $0.adoptWoken(by: condition, holding: lock) }) else { return }
        setCurrentBox(SeatBox(seat, leavesAtExit: true))
    }

    // MARK: - Hand-offs

    /// Work is handed to a thread the checker does not own (a new thread, a Dispatch block, a
    /// timer's handler): on a seat of a controlled run, the ticket that thread adopts
    /// (`adopt`); `nil` otherwise (inactive: one relaxed load and a branch). `label` names the
    /// work in reports.
    @inlinable @inline(__always)
    public static func fork(_ arrival: Arrival, label: StaticString = #fileID) -> (any ScheduleTicket)? {
        if isActive { return forked(arrival, label) }
        return nil
    }

    @usableFromInline @inline(never)
    static func forked(_ arrival: Arrival, _ label: StaticString) -> (any ScheduleTicket)? {
        guard let seat = controllingSeat else { return nil }
        seat.pointReached(.handOff, label: label)
        return seat.fork(arrival, label: label)
    }

    /// Runs `body`, the work `ticket` was forked for, on the calling thread: as a seat of the
    /// controlled run for `body`'s duration, or natively when `ticket` is `nil` (the run was
    /// not active, or is over).
    @inlinable
    public static func adopt<R>(_ ticket: (any ScheduleTicket)?, _ body: () throws -> R) rethrows -> R {
        guard let ticket else { return try body() }
        return try adopted(ticket, body)
    }

    @usableFromInline
    static func adopted<R>(_ ticket: any ScheduleTicket, _ body: () throws -> R) rethrows -> R {
        guard let seat = ticket.arrive() else { return try body() }
        let outer = setCurrentBox(SeatBox(seat, leavesAtExit: false))
        defer {
            // A native wait in `body` (possible only once the ticket's run was over) may have
            // made the thread another run's seat: its work, and so that seat, end here too.
            if let woken = currentBox, woken.leavesAtExit { woken.seat.leave() }
            seat.leave()
            setCurrentBox(outer)
        }
        return try body()
    }

    /// `job`, the work `ticket` was forked for, as a block for a runtime that keeps the block
    /// after running it (Dispatch releases a block on its own thread, when it likes): `job`
    /// itself when `ticket` is `nil`; else a block that adopts `ticket`, runs `job` and lets go
    /// of it on the seat, before the seat leaves. Releasing a job may free what it captured (a
    /// task, a cancellation source), and a deinit that synchronizes is a point: released later
    /// by the runtime, outside the run, those points would come or not depending on how fast
    /// the runtime frees the block, and the same seed would make other decisions.
    public static func adopting(
        _ ticket: (any ScheduleTicket)?,
        _ job: @escaping @Sendable () -> Void
    ) -> @Sendable () -> Void {
        guard let ticket else { return job }
        let held = HandedOffJob(job)
        return { adopt(ticket) { held.run() } }
    }

    /// The work `ticket` was forked for will not run (a timer disposed before it fired): see
    /// `ScheduleTicket.withdraw()`. Nothing for `nil`.
    @inlinable
    public static func withdraw(_ ticket: (any ScheduleTicket)?) {
        ticket?.withdraw()
    }

    /// The run's clock on a seat (`ScheduleSeat.now`), `nil` elsewhere.
    @usableFromInline @inline(never)
    static func seatNow() -> UInt64? {
        controllingSeat?.now
    }
}

/// The address of `SchedulePoint.active`. A global of another module is reached through a call
/// to its addressor at every use; this function returns the same constant address, and says so
/// (`readnone`), so the optimizer calls it once per function and keeps the address (two checks
/// in one function, or one in a loop, then cost a load and a branch each, not a call). A free
/// function: a static one gets a specialized copy without its metatype argument, and every call
/// a jump through the original.
@usableFromInline @_effects(readnone) @inline(never)
func scheduleActiveFlag() -> UnsafeRawPointer {
    withUnsafePointer(to: SchedulePoint.active) { UnsafeRawPointer($0) }
}

/// A job handed to another thread under a controlled run (`SchedulePoint.adopting`): taken out
/// when it runs, so that the thread running it also releases it.
private final class HandedOffJob: Sendable {
    private let job: Mutex<(@Sendable () -> Void)?>

    init(_ job: @escaping @Sendable () -> Void) {
        self.job = Mutex(job)
    }

    /// Runs the job and releases it; a second run (a runtime running a block twice, which the
    /// ticket's second arrival reports as C7.3) finds nothing to run.
    func run() {
        guard let job = job.withLock({ $0.take() }) else { return }
        job()
    }
}

/// A thread's seat, boxed so that one pointer holds it in a thread-specific key.
private final class SeatBox {
    let seat: any ScheduleSeat
    /// A seat a native wake-up made (`SchedulePoint.wokenNatively`): nothing else leaves it, so
    /// the thread does when it ends (the key's destructor).
    let leavesAtExit: Bool

    init(_ seat: any ScheduleSeat, leavesAtExit: Bool) {
        self.seat = seat
        self.leavesAtExit = leavesAtExit
    }
}

/// The thread-specific key of `SchedulePoint.current`; created once, never deleted. Its
/// destructor releases the box a thread still holds when it exits, and leaves the seat first if
/// a native wake-up made it (nothing else will).
private let seatKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { pointer in
        guard let pointer else { return }
        let box = Unmanaged<SeatBox>.fromOpaque(pointer).takeRetainedValue()
        if box.leavesAtExit { box.seat.leave() }
    }
    return key
}()
