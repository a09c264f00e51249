import Dispatch
import Foundation
import ScheduleKit
import Synchronization
import Testing

@testable import Conformance
@testable import ScheduleKit

/// A seat of the seated engine that must wait (on a `ConditionLock`'s condition, or for a lock
/// found taken) is registered as waiting before the window in which a thread outside the run (no
/// seat: a thread started before the run, a Dispatch thread, a backend's own) could make the
/// wait needless: so that thread's signal or release reaches it, as natively it would.
/// Harness behaviour, no contract rule.
///
/// Before, a seat's condition wait let the lock go first and registered after: a signal in
/// between found no waiter (and no thread in `pthread_cond_wait` either), and the seat slept until
/// another signal or its deadline, where the native code would have woken (a correct backend's
/// run called stuck). And a seat that found a lock taken registered as blocked after its try-lock:
/// a release in between found no seat blocked and was dropped; the seat stayed blocked on a free
/// lock until no seat could go on, and the run's clock moved first (timed waits timed out).
@Suite struct SeatWaitWindowTests {
    /// The seat's wait ends (its driver finishes, the run is quiescent) once the thread outside
    /// the run, which took the lock the moment the seat let it go, has signalled; before the
    /// fix, the seat was still waiting at quiescence. The lock is still held as the seat's wait
    /// begins: the seat registers, then lets it go.
    @Test func aSignalFromOutsideTheRunAsTheLockIsFreedWakesTheWaitingSeat() {
        let lock = ConditionLock(false, label: "SeatWaitWindowTests.condition")
        let table = Self.table(drivers: 1)
        let outside = OutsideThread(lock: lock)
        let waits = Count()
        ProcessScheduleController.shared.begin(table)
        table.expect(0, step: 0)
        Self.startDriver(0, table: table, outside: outside) {
            lock.lock()
            while !lock.guarded {
                waits.value.wrappingAdd(1, ordering: .relaxed)
                lock.wait()
            }
            lock.unlock()
        }
        // Work from outside the run, once: the thread's signal, which the loop waits for.
        let (turn, driverDone) = Self.runToQuiescence(table) { outside.finishedOnce() }

        #expect(outside.finished, "the thread outside the run never signalled")
        #expect(outside.heldAsTheWaitBegan, "ConditionLock let its lock go before the seat registered its wait")
        #expect(waits.value.load(ordering: .relaxed) == 1, "the seat did not wait exactly once")
        Self.expectQuiescent(turn)
        #expect(driverDone, "the seat slept through the signal of a thread outside the run (a lost wake-up)")
    }

    /// A seat (`d0`) finds a lock taken by a thread outside the run, which releases it before the
    /// seat registers as blocked; another seat (`d1`) waits, with a deadline, for what `d0` does
    /// once it has the lock. `d0` takes the lock and `d1` is signalled before its deadline;
    /// before the fix, `d0` stayed blocked on the free lock, no seat could go on, and the run's
    /// clock moved to `d1`'s deadline: `d1` timed out.
    @Test func aReleaseFromOutsideTheRunBeforeTheSeatBlocksIsNotLost() {
        let lock = ConditionLock(false, label: "SeatWaitWindowTests.lock")
        let flag = ConditionLock(false, label: "SeatWaitWindowTests.flag")
        let table = Self.table(drivers: 2)
        let outside = OutsideThread(lock: lock)
        let timedOut = Count()
        ProcessScheduleController.shared.begin(table)
        // Taken while the controller is installed: its release is told to the run.
        outside.holdUntilAskedToRelease()
        table.expect(0, step: 0)
        table.expect(1, step: 0)
        Self.startDriver(0, table: table, outside: outside) {
            lock.lock()
            lock.unlock()
            flag.withLock { $0 = true }
            flag.signal()
        }
        Self.startDriver(1, table: table, outside: outside) {
            let deadline = MonotonicClock.now + 1_000_000_000
            flag.lock()
            while !flag.guarded {
                if !flag.wait(until: deadline) {
                    timedOut.value.wrappingAdd(1, ordering: .relaxed)
                    break
                }
            }
            flag.unlock()
        }
        let (turn, driversDone) = Self.runToQuiescence(table) { false }

        #expect(outside.released, "the seat never found the lock taken by the thread outside the run")
        Self.expectQuiescent(turn)
        #expect(driversDone, "a driver did not finish")
        #expect(timedOut.value.load(ordering: .relaxed) == 0, "the run's clock moved while a seat was blocked on a free lock")
    }

    /// A seat whose condition wait is signalled by a thread outside the run that still holds the
    /// lock takes the lock again only once that thread has let it go: its try-lock fails, it
    /// registers as blocked, and the thread's release (in the seat's window, `WindowSeat`) lets
    /// it on. A seat that went on after a failed try-lock would run its critical section while
    /// the other thread holds the lock (mutants 246 and 247 of the fifth mutation run,
    /// docs/results/2026-11-28-mutation-5.md).
    @Test func aSeatWokenWhileAThreadOutsideTheRunHoldsTheLockWaitsForIt() {
        let lock = ConditionLock(false, label: "SeatWaitWindowTests.heldAfterSignal")
        let table = Self.table(drivers: 1)
        let outside = OutsideThread(lock: lock, holdsAfterSignalling: true)
        let releasedFirst = Atomic<Int>(0)
        let returns = Count()
        ProcessScheduleController.shared.begin(table)
        table.expect(0, step: 0)
        Self.startDriver(0, table: table, outside: outside) {
            lock.lock()
            while !lock.guarded {
                lock.wait()
                // Back from the wait, so holding the lock: the thread outside has let it go.
                returns.value.wrappingAdd(1, ordering: .relaxed)
                releasedFirst.store(outside.released ? 1 : 2, ordering: .relaxed)
            }
            lock.unlock()
        }
        let (turn, driverDone) = Self.runToQuiescence(table) { outside.finishedOnce() }
        // Lets the thread outside go, should the seat have gone on without the lock.
        outside.releaseIfHeld()

        #expect(outside.finished, "the thread outside the run never signalled")
        #expect(returns.value.load(ordering: .relaxed) == 1, "the seat's wait did not return exactly once")
        #expect(
            releasedFirst.load(ordering: .relaxed) == 1,
            "the seat's wait returned while the thread outside the run still held the lock")
        Self.expectQuiescent(turn)
        #expect(driverDone, "the seat did not finish")
    }

    static func table(drivers: Int) -> SeatTable {
        SeatTable(
            drivers: drivers, strategy: StrategyState(strategy: .randomWalk, seed: 1, expectedPoints: 0),
            arrivalLimit: .seconds(10), clock: RunClock(), stepReady: { _ in true })
    }

    /// Starts driver `key`'s thread on a `WindowSeat`: it runs `body` once it holds the baton,
    /// then leaves.
    fileprivate static func startDriver(_ key: Int, table: SeatTable, outside: OutsideThread, _ body: @escaping @Sendable () -> Void) {
        Thread {
            SchedulePoint.setCurrent(WindowSeat(RunSeat(table: table, key: key), outside: outside))
            if table.arriveAsDriver(key) { body() }
            table.leave(key)
            SchedulePoint.setCurrent(nil)
        }.start()
    }

    /// Runs `table`'s seats (the run begun by the test) until quiescent, `outsideWork` polled as
    /// the work from outside the run; then lets a seat still waiting go on natively (a spurious
    /// wake-up, so its thread ends) and ends the run: how the run ended, and whether every driver
    /// finished before the release.
    static func runToQuiescence(_ table: SeatTable, outsideWork: () -> Bool) -> (turn: SeatTable.Turn, driversDone: Bool) {
        let turn = table.runUntilQuiescent(blockedLimit: .seconds(10), cap: .now + .seconds(10), outsideWork: outsideWork)
        let driversDone = table.driversDone
        table.releaseAll()
        ProcessScheduleController.shared.end(table)
        return (turn, driversDone)
    }

    static func expectQuiescent(_ turn: SeatTable.Turn) {
        if case .quiescent = turn { return }
        Issue.record("the run ended \(turn), not quiescent")
    }
}

/// A count, shared with a seat's thread.
private final class Count: Sendable {
    let value = Atomic<Int>(0)
}

/// A thread outside the run (no seat) acting on `lock` in a seat's window (`WindowSeat`): it takes
/// the lock as a seat's condition wait lets it go, sets the value and signals; or it holds the lock
/// and releases it as a seat that found it taken is about to block. The seat's other locks and
/// conditions are left alone.
private final class OutsideThread: Sendable {
    let lock: ConditionLock<Bool>
    /// The thread holds the lock (and set the value, when it signals).
    private let holding = DispatchSemaphore(value: 0)
    /// The thread signalled and released the lock.
    private let finishedSignal = DispatchSemaphore(value: 0)
    private let release = DispatchSemaphore(value: 0)
    private let releasedSignal = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)
    private let reported = Atomic<Bool>(false)
    private let done = Atomic<Bool>(false)
    private let held = Atomic<Bool>(false)
    private let holds = Atomic<Bool>(false)
    private let releasedFlag = Atomic<Bool>(false)

    /// The signalling thread keeps the lock after it signals, until `releaseIfHeld()`.
    private let holdsAfterSignalling: Bool

    init(lock: ConditionLock<Bool>, holdsAfterSignalling: Bool = false) {
        self.lock = lock
        self.holdsAfterSignalling = holdsAfterSignalling
    }

    var finished: Bool { done.load(ordering: .acquiring) }
    var released: Bool { releasedFlag.load(ordering: .acquiring) }
    var heldAsTheWaitBegan: Bool { held.load(ordering: .relaxed) }

    /// Records whether the lock is held (by the calling thread, the seat) as its wait begins.
    func noteWhetherTheLockIsHeld() {
        held.store(lock.isTaken(), ordering: .relaxed)
    }

    /// Starts the thread that takes the lock, sets the value and signals (once); returns once it
    /// holds the lock and set the value. It lets the lock go after signalling, or, if it
    /// `holdsAfterSignalling`, when asked (`releaseIfHeld()`).
    func signalAsTheLockIsFree() {
        guard !started.exchange(true, ordering: .relaxed) else { return }
        if holdsAfterSignalling { holds.store(true, ordering: .relaxed) }
        Thread { [self] in
            lock.lock()
            lock.guarded = true
            holding.signal()
            lock.signal()
            if !holdsAfterSignalling { lock.unlock() }
            done.store(true, ordering: .releasing)
            finishedSignal.signal()
            guard holdsAfterSignalling else { return }
            release.wait()
            lock.unlock()
            releasedFlag.store(true, ordering: .releasing)
            releasedSignal.signal()
        }.start()
        holding.wait()
    }

    /// The first time: waits (up to 10 s) for the signalling thread to have finished, and says so
    /// (`true`: the loop looks again); later: `false`.
    func finishedOnce() -> Bool {
        guard !reported.exchange(true, ordering: .relaxed), started.load(ordering: .relaxed) else { return false }
        return finished || finishedSignal.wait(timeout: .now() + .seconds(10)) == .success
    }

    /// Starts a thread that takes the lock and holds it until `releaseIfHeld()`; returns once it
    /// holds it.
    func holdUntilAskedToRelease() {
        holds.store(true, ordering: .relaxed)
        Thread { [self] in
            lock.lock()
            holding.signal()
            release.wait()
            lock.unlock()
            releasedFlag.store(true, ordering: .releasing)
            releasedSignal.signal()
        }.start()
        holding.wait()
    }

    /// If the holding thread holds the lock: lets it go, and returns once it did (its release
    /// told to the run).
    func releaseIfHeld() {
        guard holds.exchange(false, ordering: .relaxed) else { return }
        release.signal()
        releasedSignal.wait()
    }
}

/// A driver's seat that opens the windows: as its condition wait lets the lock go, the thread
/// outside the run takes it and sets the value (the wait goes on once it has), and signals while
/// the seat goes to sleep; as it finds the lock taken, the thread outside the run releases it,
/// before the seat registers as blocked.
private final class WindowSeat: ScheduleSeat {
    let inner: RunSeat
    let outside: OutsideThread

    init(_ inner: RunSeat, outside: OutsideThread) {
        self.inner = inner
        self.outside = outside
    }

    var controlsSynchronization: Bool { inner.controlsSynchronization }
    func pointReached(_ kind: SchedulePoint.Kind, label: StaticString) { inner.pointReached(kind, label: label) }
    func lockAcquired(_ lock: SchedulePoint.Object, label: StaticString) { inner.lockAcquired(lock, label: label) }

    func lockBusy(_ lock: SchedulePoint.Object, label: StaticString, isTaken: () -> Bool) {
        if lock == outside.lock.lockObject { outside.releaseIfHeld() }
        inner.lockBusy(lock, label: label, isTaken: isTaken)
    }

    func lockReleased(_ lock: SchedulePoint.Object, label: StaticString) { inner.lockReleased(lock, label: label) }

    func conditionWait(
        _ condition: SchedulePoint.Object, releasing lock: SchedulePoint.Object, deadline: UInt64?,
        label: StaticString, unlock: () -> Void
    ) -> Bool {
        guard condition == outside.lock.conditionObject else {
            return inner.conditionWait(condition, releasing: lock, deadline: deadline, label: label, unlock: unlock)
        }
        outside.noteWhetherTheLockIsHeld()
        return inner.conditionWait(condition, releasing: lock, deadline: deadline, label: label) {
            unlock()
            outside.signalAsTheLockIsFree()
        }
    }

    func conditionSignal(
        _ condition: SchedulePoint.Object, lock: SchedulePoint.Object, all: Bool, nativeWaiters: Int,
        label: StaticString
    ) {
        inner.conditionSignal(condition, lock: lock, all: all, nativeWaiters: nativeWaiters, label: label)
    }

    func fork(_ arrival: SchedulePoint.Arrival, label: StaticString) -> (any ScheduleTicket)? {
        inner.fork(arrival, label: label)
    }

    func leave() { inner.leave() }
    var now: UInt64 { inner.now }
}
