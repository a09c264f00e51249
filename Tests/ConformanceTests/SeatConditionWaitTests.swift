import Dispatch
import Foundation
import ScheduleKit
import Synchronization
import Testing

@testable import Conformance
@testable import ScheduleKit

/// A seat of the seated engine waiting on a `ConditionLock` is a waiter of its condition from
/// before it lets the lock go, as `pthread_cond_wait` makes the release and the wait one step: a
/// thread outside the run (no seat: a thread started before the run, a Dispatch thread, a
/// backend's own) that takes the lock the moment it is free, sets what the seat waits for and
/// signals, wakes the seat. Harness behaviour, no contract rule. Before, the lock was released
/// first and the seat registered after: a signal in between found no waiter (and no thread in
/// `pthread_cond_wait` either), and the seat slept until another signal or its deadline, where the
/// native code would have woken: a run of a correct backend called stuck.
@Suite struct SeatConditionWaitTests {
    /// The seat's wait ends (its driver finishes, the run is quiescent) once the thread outside
    /// the run has signalled; without the fix, the seat is still waiting at quiescence. The lock
    /// is still held as the seat's wait begins: the seat registers, then lets it go.
    @Test func aSignalFromOutsideTheRunAsTheLockIsFreedWakesTheWaitingSeat() {
        let lock = ConditionLock(false, label: "SeatConditionWaitTests")
        let table = SeatTable(
            drivers: 1, strategy: StrategyState(strategy: .randomWalk, seed: 1, expectedPoints: 0),
            arrivalLimit: .seconds(10), clock: RunClock(), stepReady: { _ in true })
        let outside = OutsideSignaller(lock: lock)
        let waits = WaitCount()
        ProcessScheduleController.shared.begin(table)
        table.expect(0, step: 0)
        let driver = Thread {
            SchedulePoint.setCurrent(WindowSeat(RunSeat(table: table, key: 0), outside: outside))
            if table.arriveAsDriver(0) {
                lock.lock()
                while !lock.guarded {
                    waits.count.wrappingAdd(1, ordering: .relaxed)
                    lock.wait()
                }
                lock.unlock()
            }
            table.leave(0)
            SchedulePoint.setCurrent(nil)
        }
        driver.start()
        let turn = table.runUntilQuiescent(blockedLimit: .seconds(10), cap: .now + .seconds(10)) {
            // Work from outside the run, once: the signaller's, which the loop waits for.
            outside.finishedOnce()
        }
        let driverDone = table.driversDone
        // Lets a seat still waiting go on natively (a spurious wake-up), so its thread ends.
        table.releaseAll()
        ProcessScheduleController.shared.end(table)

        #expect(outside.signalled, "the thread outside the run never signalled")
        #expect(outside.heldAsTheWaitBegan, "ConditionLock let its lock go before the seat registered its wait")
        #expect(waits.count.load(ordering: .relaxed) == 1, "the seat did not wait exactly once")
        if case .quiescent = turn {
        } else {
            Issue.record("the run ended \(turn), not quiescent")
        }
        #expect(driverDone, "the seat slept through the signal of a thread outside the run (a lost wake-up)")
    }
}

/// How many times the seat went to wait.
private final class WaitCount: Sendable {
    let count = Atomic<Int>(0)
}

/// A thread outside the run (no seat) that takes the lock, sets its value and signals: started by
/// the seat as it lets the lock go.
private final class OutsideSignaller: Sendable {
    let lock: ConditionLock<Bool>
    /// The thread holds the lock and set the value.
    let holding = DispatchSemaphore(value: 0)
    /// The thread signalled and released the lock.
    let finished = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)
    private let reported = Atomic<Bool>(false)
    private let done = Atomic<Bool>(false)
    private let held = Atomic<Bool>(false)

    init(lock: ConditionLock<Bool>) {
        self.lock = lock
    }

    var signalled: Bool { done.load(ordering: .acquiring) }
    var heldAsTheWaitBegan: Bool { held.load(ordering: .relaxed) }

    /// Records whether the lock is held (by the calling thread, the seat) as its wait begins.
    func noteWhetherTheLockIsHeld() {
        // A try-lock fails on a held lock, whoever holds it; if it succeeds, the lock was free.
        let free = pthread_mutex_trylock(lock.mutex) == 0
        if free { pthread_mutex_unlock(lock.mutex) }
        held.store(!free, ordering: .relaxed)
    }

    /// Starts the thread (once).
    func start() {
        guard !started.exchange(true, ordering: .relaxed) else { return }
        Thread { [self] in
            lock.lock()
            lock.guarded = true
            holding.signal()
            lock.signal()
            lock.unlock()
            done.store(true, ordering: .releasing)
            finished.signal()
        }.start()
    }

    /// The first time: waits (up to 10 s) for the thread to have signalled, and says so (`true`,
    /// the loop looks again); later: `false`.
    func finishedOnce() -> Bool {
        guard !reported.exchange(true, ordering: .relaxed), started.load(ordering: .relaxed) else { return false }
        return signalled || finished.wait(timeout: .now() + .seconds(10)) == .success
    }
}

/// The driver's seat, which opens the window: as its condition wait lets the lock go, the thread
/// outside the run starts, takes the lock and sets the value (the seat's wait goes on once it
/// has), then signals while the seat goes to sleep.
private final class WindowSeat: ScheduleSeat {
    let inner: RunSeat
    let outside: OutsideSignaller

    init(_ inner: RunSeat, outside: OutsideSignaller) {
        self.inner = inner
        self.outside = outside
    }

    var controlsSynchronization: Bool { inner.controlsSynchronization }
    func pointReached(_ kind: SchedulePoint.Kind, label: StaticString) { inner.pointReached(kind, label: label) }
    func lockAcquired(_ lock: SchedulePoint.Object, label: StaticString) { inner.lockAcquired(lock, label: label) }
    func lockBusy(_ lock: SchedulePoint.Object, label: StaticString) { inner.lockBusy(lock, label: label) }
    func lockReleased(_ lock: SchedulePoint.Object, label: StaticString) { inner.lockReleased(lock, label: label) }

    func conditionWait(
        _ condition: SchedulePoint.Object, releasing lock: SchedulePoint.Object, deadline: UInt64?,
        label: StaticString, unlock: () -> Void
    ) -> Bool {
        outside.noteWhetherTheLockIsHeld()
        return inner.conditionWait(condition, releasing: lock, deadline: deadline, label: label) {
            unlock()
            outside.start()
            outside.holding.wait()
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
