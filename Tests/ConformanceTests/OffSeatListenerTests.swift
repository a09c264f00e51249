import Foundation
import Synchronization
import Testing

@testable import Conformance
@testable import ScheduleKit

/// What a thread that is no seat tells the process's schedule controller
/// (`ProcessScheduleController`) reaches every seated run registered before it, while runs begin
/// and end beside it: the controller publishes its listeners as snapshots that such threads read
/// without a lock, and a run's `begin` or `end` swaps them. Harness behaviour, no contract rule:
/// a release or a signal lost here leaves a seat blocked on a lock or a condition that a thread
/// outside its run freed (`SeatBlockedOutsideTests` shows the run that needs it).
@Suite struct OffSeatListenerTests {
    /// A listener hears every release and signal a thread outside the runs makes while it is
    /// registered, and none once its run ended; the thread is not paused.
    @Test func aListenerHearsReleasesAndSignalsUntilItsRunEnds() {
        let lock = ConditionLock(0, label: "OffSeatListenerTests")
        let listener = CountingListener(lock: lock.lockObject, condition: lock.conditionObject)
        ProcessScheduleController.shared.begin(listener)
        let during = Latch()
        let deadline = MonotonicClock.deadline(after: .seconds(10))
        Thread {
            for _ in 0..<3 { lock.withLock { $0 += 1 } }
            lock.signal()
            lock.broadcast()
            during.open()
        }.start()
        let ran = during.wait(until: deadline)
        ProcessScheduleController.shared.end(listener)
        #expect(ran, "the thread outside the run did not finish its releases within 10 s")
        #expect(listener.heard == Heard(releases: 3, signals: 1, broadcasts: 1))

        // The same thread's work once the run ended reaches the listener no more.
        let after = Latch()
        Thread {
            lock.withLock { $0 += 1 }
            lock.signal()
            after.open()
        }.start()
        #expect(after.wait(until: deadline))
        #expect(listener.heard == Heard(releases: 3, signals: 1, broadcasts: 1), "an ended run still heard a release")
    }

    /// Runs beginning and ending beside threads that release a lock: a listener registered
    /// before the releases hears each one, whatever the snapshots published meanwhile. Run
    /// under the thread sanitizer, this is the check that a reader's snapshot is never freed
    /// under it (`ProcessScheduleController.publish`).
    @Test func aListenerHearsEveryReleaseWhileRunsBeginAndEnd() {
        let lock = ConditionLock(0, label: "OffSeatListenerTests.churn")
        let listener = CountingListener(lock: lock.lockObject, condition: lock.conditionObject)
        ProcessScheduleController.shared.begin(listener)
        let releasers = 2
        let releases = 20_000
        let done = DoneCount()
        let finished = Latch()
        for _ in 0..<releasers {
            Thread {
                for _ in 0..<releases { lock.withLock { $0 += 1 } }
                if done.count.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == releasers { finished.open() }
            }.start()
        }
        var churned = 0
        while done.count.load(ordering: .acquiring) < releasers {
            let other = CountingListener(lock: lock.lockObject, condition: lock.conditionObject)
            ProcessScheduleController.shared.begin(other)
            ProcessScheduleController.shared.end(other)
            churned += 1
        }
        let ran = finished.wait(until: MonotonicClock.deadline(after: .seconds(30)))
        ProcessScheduleController.shared.end(listener)
        #expect(ran, "the releasing threads did not finish within 30 s")
        #expect(churned > 0)
        #expect(listener.heard.releases == releasers * releases)
    }

    /// An ended run's listener is not kept for good: it is freed by a later publication that
    /// finds no reader in flight (the crowd of a test process may keep readers in flight at
    /// any one).
    @Test func anEndedRunsListenerIsFreed() {
        weak var gone: CountingListener?
        do {
            let listener = CountingListener(lock: .init(address: 1), condition: .init(address: 2))
            gone = listener
            ProcessScheduleController.shared.begin(listener)
            ProcessScheduleController.shared.end(listener)
        }
        let deadline = MonotonicClock.deadline(after: .seconds(10))
        while gone != nil, MonotonicClock.now < deadline {
            let other = CountingListener(lock: .init(address: 1), condition: .init(address: 2))
            ProcessScheduleController.shared.begin(other)
            ProcessScheduleController.shared.end(other)
        }
        #expect(gone == nil, "the controller kept an ended run's listener")
    }
}

/// How many releasing threads finished.
private final class DoneCount: Sendable {
    let count = Atomic<Int>(0)
}

struct Heard: Equatable, Sendable {
    var releases = 0
    var signals = 0
    var broadcasts = 0
}

/// Counts what it hears of one lock and its condition (other tests' threads release others).
private final class CountingListener: OffSeatListener {
    let lock: SchedulePoint.Object
    let condition: SchedulePoint.Object
    /// `PlainLocked`, not a `Mutex`: the thread sanitizer does not see a contended `Mutex`'s
    /// hand-off on Linux (see `PlainLocked`), and reported races between these counts.
    private let counts = PlainLocked(Heard())

    init(lock: SchedulePoint.Object, condition: SchedulePoint.Object) {
        self.lock = lock
        self.condition = condition
    }

    var heard: Heard { counts.withLock { $0 } }

    func lockReleasedOffSeat(_ lock: SchedulePoint.Object) {
        guard lock == self.lock else { return }
        counts.withLock { $0.releases += 1 }
    }

    func conditionSignalledOffSeat(_ condition: SchedulePoint.Object, all: Bool) {
        guard condition == self.condition else { return }
        counts.withLock { all ? ($0.broadcasts += 1) : ($0.signals += 1) }
    }

    func adoptWoken(by condition: SchedulePoint.Object, holding lock: SchedulePoint.Object) -> (any ScheduleSeat)? {
        nil
    }
}
