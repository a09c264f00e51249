import Foundation
import ScheduleKit
import Synchronization
import Testing

@testable import Conformance

/// A thread that sleeps natively on a `ConditionLock` since before a controlled run, and that a
/// seat's signal wakes, becomes a seat (`ScheduleController.adoptWoken`) that no `adopt` leaves.
/// A pool's worker does just that, then finds itself surplus (a blocked worker came back) and
/// exits: its seat, still holding the baton, must leave as the thread ends. Before it did, the
/// seated engine waited for the gone thread until its watchdog, and called correct backends
/// broken (the threads and actors backends, C7.3 and C2.1, on programs where a job blocked in
/// `wait(timeout:)`: see `ProgramOperation.SerialHandOff`).
@Suite struct WokenSeatTests {
    /// The thread's seat leaves when the thread ends.
    @Test func aThreadWokenIntoASeatLeavesItWhenItEnds() {
        let lock = ConditionLock(Phase.starting, label: "WokenSeatTests")
        let listener = WokenListener()
        let thread = Thread {
            lock.lock()
            lock.guarded = .parked
            while lock.guarded != .go { lock.wait() }
            lock.unlock()
        }
        listener.thread.withLock { $0 = ObjectIdentifier(thread) }
        thread.start()
        // The thread set `.parked` holding the lock and keeps it until its native wait releases
        // it: once this thread sees `.parked`, the other sleeps natively.
        let deadline = MonotonicClock.deadline(after: .seconds(10))
        while lock.withLock({ $0 }) != .parked, MonotonicClock.now < deadline { usleep(100) }
        #expect(lock.withLock { $0 } == .parked, "the thread never parked")

        ProcessScheduleController.shared.begin(listener)
        lock.withLock { $0 = .go }
        lock.signal()
        let left = listener.seat.left.wait(until: deadline)
        ProcessScheduleController.shared.end(listener)

        let adopted = listener.adopted.load(ordering: .acquiring)
        #expect(adopted, "the woken thread was not offered a seat")
        #expect(left, "the thread ended without leaving the seat its native wake-up made")
    }

    enum Phase: Sendable { case starting, parked, go }
}

/// Offers one seat, to one thread, as it comes back from a native wait.
private final class WokenListener: OffSeatListener {
    let thread = Mutex<ObjectIdentifier?>(nil)
    let seat = RecordingSeat()
    let adopted = Atomic<Bool>(false)

    func lockReleasedOffSeat(_ lock: SchedulePoint.Object) {}
    func conditionSignalledOffSeat(_ condition: SchedulePoint.Object, all: Bool) {}

    func adoptWoken(by condition: SchedulePoint.Object, holding lock: SchedulePoint.Object) -> (any ScheduleSeat)? {
        guard thread.withLock({ $0 }) == ObjectIdentifier(Thread.current),
            !adopted.exchange(true, ordering: .acquiringAndReleasing)
        else { return nil }
        return seat
    }
}

/// A seat that controls nothing (its thread's primitives stay native) and records its leaving.
private final class RecordingSeat: ScheduleSeat {
    let left = Latch()

    var controlsSynchronization: Bool { false }
    func pointReached(_ kind: SchedulePoint.Kind, label: StaticString) {}
    func lockAcquired(_ lock: SchedulePoint.Object, label: StaticString) {}
    func lockBusy(_ lock: SchedulePoint.Object, label: StaticString, isTaken: () -> Bool) {}
    func lockReleased(_ lock: SchedulePoint.Object, label: StaticString) {}

    func conditionWait(
        _ condition: SchedulePoint.Object, releasing lock: SchedulePoint.Object, deadline: UInt64?,
        label: StaticString, unlock: () -> Void
    ) -> Bool {
        unlock()
        return true
    }

    func conditionSignal(
        _ condition: SchedulePoint.Object, lock: SchedulePoint.Object, all: Bool, nativeWaiters: Int,
        label: StaticString
    ) {}

    func fork(_ arrival: SchedulePoint.Arrival, label: StaticString) -> (any ScheduleTicket)? { nil }
    func leave() { left.open() }
    var now: UInt64 { MonotonicClock.systemNow }
}
