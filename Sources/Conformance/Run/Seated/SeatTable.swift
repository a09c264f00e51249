import Foundation
import ScheduleKit
import Synchronization
import TaskAPI

/// The seats of one run of the seated engine (`SeatedRun.swift`), and its baton: exactly one seat
/// runs at a time, the one holding the baton; the others wait on their own semaphore.
///
/// A seat is a thread of the run: a driver (`d<n>`), the harness completing held sources (`h`),
/// or a thread that runs work a seat handed over (`t<n>`, numbered in fork order): a thread the
/// backend started, a Dispatch block, a timer's handler, a thread sleeping natively that a seat's
/// signal woke. At every schedule point (every synchronization of ScheduleKit's primitives on a seat)
/// the seat holding the baton decides, in its own thread and under the table's lock, which seat
/// goes next (`decide`): itself, usually, and then nothing switches. A seat that finds a lock
/// taken or waits on a condition is blocked: not a candidate until the release or the signal (or,
/// for a timed wait, until the run's clock passes its deadline). When no seat can go on, the baton
/// goes to the loop (`SeatedRun`), which moves the run's clock, or ends the phase, or calls the
/// run stuck.
///
/// The candidates are computed in key order and the strategy draws among them, so the same seed
/// makes the same choices; hand-offs that have not arrived yet are candidates under their key
/// as soon as they are due (`.now` at once, `.lane` once no earlier hand-off of their lane is
/// left, `.notBefore` once the run's clock reached their deadline), and picking one waits for its
/// thread, so no candidate set depends on how fast a thread shows up. The one exception: a thread
/// that sleeps natively and was woken by a seat's signal takes the condition's lock by itself as
/// it wakes, so every decision first waits (bounded) for such a thread to arrive once that lock
/// is free (`settleWokenNatively`).
final class SeatTable: OffSeatListener, @unchecked Sendable {
    // @unchecked Sendable: every `var` is touched only holding `monitor`; `releasedFlag` and
    // `clock` are atomics, read without it.

    enum Status: Equatable {
        /// May run: it holds the baton, or is a candidate.
        case runnable
        /// A hand-off whose thread has not run yet.
        case ticket
        /// Found the lock taken: blocked until its release.
        case lockBlocked(SchedulePoint.Object)
        /// Waits on the condition until a signal, or (with a deadline) until the run's clock
        /// passes it.
        case waiting(SchedulePoint.Object, deadline: UInt64?)
        /// A driver (or the harness) between steps: a candidate once its next step can run.
        case idle
        /// Left the run.
        case done
    }

    struct Seat {
        let key: Int
        /// `d0`, `h`, `t3`.
        let name: String
        /// What it runs: `driver d0`, `GCD drainer (a hand-off, now)`.
        let what: String
        var status: Status
        let handOff: SchedulePoint.Arrival?
        /// A thread sleeping natively on this condition (with this lock) that a seat's signal woke.
        let woken: (condition: SchedulePoint.Object, lock: SchedulePoint.Object)?
        /// Its thread is here (it waits for the baton, or runs).
        var arrived = false
        let wake = DispatchSemaphore(value: 0)
        var lastPoint: StaticString = "none yet"
        /// What it blocks on, for reports.
        var blockedOn: StaticString = ""
        /// A driver's step under way, or next.
        var step: Int?
        var waitOrder = 0
        var timedOut = false
        /// For a timer's hand-off: when its thread can come at the earliest, in real time.
        var realDue: Uptime?

        init(
            key: Int, name: String, what: String, status: Status, handOff: SchedulePoint.Arrival? = nil,
            woken: (condition: SchedulePoint.Object, lock: SchedulePoint.Object)? = nil
        ) {
            self.key = key
            self.name = name
            self.what = what
            self.status = status
            self.handOff = handOff
            self.woken = woken
        }
    }

    private let monitor = NSCondition()
    private var seats: [Int: Seat] = [:]
    /// The seat holding the baton; `nil`: the loop.
    private var holder: Int?
    private var released = false
    let releasedFlag = Atomic<Bool>(false)
    /// The run's clock (`MonotonicClock` nanoseconds): starts at the system's, moves only when
    /// no seat can go on, to the earliest deadline. Mirrored in `clock` for readers without the
    /// lock (the seats' `now`, the event log's stamps).
    private var virtualNow: UInt64
    let clock: RunClock
    private var nextTicket = 0
    private var nextWaitOrder = 0
    /// Which seat holds each lock it told the table it took.
    private var heldBy: [SchedulePoint.Object: Int] = [:]
    private var strategy: StrategyState
    /// When the baton last moved or a point was reached (for a seat blocked outside the
    /// primitives), and when the holder was picked.
    private var lastProgress = Uptime.now
    private var pickedAt = Uptime.now
    /// Why the run may not replay, in the order seen.
    private(set) var notes: [String] = []
    /// What the table saw executors do wrong (C7.3: work dropped or run twice).
    private(set) var violations: [Finding] = []
    /// Seats blocked on a lock, read without the lock by releases outside the run.
    private let lockBlockedCount = Atomic<Int>(0)
    /// The step's inputs exist (drivers' readiness), asked under the lock. Dropped by
    /// `releaseAll()`: it captures the run's execution, and with it the backend, while threads
    /// the backend handed work to keep their seat (and this table) as long as they live: a pool's
    /// idle worker would keep its own backend, and so its pool, alive for good.
    private var stepReady: (@Sendable (Int) -> Bool)?
    /// How long a picked hand-off may take to arrive before the run is given up as not
    /// reproducible (stretched for a timer by its real deadline).
    private let arrivalLimit: Duration
    let drivers: Int
    /// The harness's seat key.
    var harnessKey: Int { drivers }

    init(
        drivers: Int, strategy: StrategyState, arrivalLimit: Duration, clock: RunClock,
        stepReady: @escaping @Sendable (Int) -> Bool
    ) {
        self.drivers = drivers
        self.strategy = strategy
        self.arrivalLimit = arrivalLimit
        self.stepReady = stepReady
        self.clock = clock
        virtualNow = clock.now
        for driver in 0..<drivers {
            seats[driver] = Seat(key: driver, name: "d\(driver)", what: "driver d\(driver)", status: .done)
        }
        // PCT: every seat a priority, the harness's included.
        for key in 0...drivers { self.strategy.introduce(key) }
    }

    /// Acquiring: a thread that sees the release (and so reads the system's clock) sees the run's
    /// clock released too (`releaseAll`), and stamps its events on the system's clock.
    var isReleased: Bool { releasedFlag.load(ordering: .acquiring) }

    private func locked<R>(_ body: () -> R) -> R {
        monitor.lock()
        defer { monitor.unlock() }
        return body()
    }

    // MARK: - Drivers and the harness

    /// Seat `key` (a driver, or the harness) will run `step` next (`-1`: the harness's one
    /// action). The first call comes from the loop, before the seat's thread exists; later ones
    /// from the seat itself when its step ended (then it decides who goes on).
    func expect(_ key: Int, step: Int) {
        locked {
            if seats[key] == nil {
                seats[key] = Seat(key: key, name: "h", what: "the harness (completing held sources)", status: .done)
            }
            seats[key]!.status = .idle
            seats[key]!.step = step
        }
    }

    /// The seat's thread is here: returns once it holds the baton (to run its next step), or the
    /// run was released (`false`).
    func arriveAsDriver(_ key: Int) -> Bool {
        locked {
            seats[key]!.arrived = true
            waitForBaton(key)
            return begin(key)
        }
    }

    /// The seat (holding the baton) goes on with its next step: a new segment.
    private func begin(_ key: Int) -> Bool {
        guard !released else { return false }
        seats[key]!.status = .runnable
        return true
    }

    /// A driver's step ended: it waits for its next turn, `step` next. `false`: released.
    func nextStep(_ key: Int, step: Int) -> Bool {
        locked {
            guard !released else { return false }
            seats[key]!.status = .idle
            seats[key]!.step = step
            reschedule(key, mayPreempt: false)
            return begin(key)
        }
    }

    // MARK: - What seats tell the table (on their own thread, holding the baton)

    func point(_ key: Int, _ kind: SchedulePoint.Kind, label: StaticString) {
        locked {
            guard owns(key) else { return }
            seats[key]!.lastPoint = label
            lastProgress = .now
            reschedule(key, mayPreempt: true)
        }
    }

    func lockAcquired(_ key: Int, _ lock: SchedulePoint.Object) {
        locked {
            guard owns(key) else { return }
            heldBy[lock] = key
        }
    }

    /// The seat found `lock` taken: registered as blocked on it, then `isTaken` looks again. A
    /// thread outside the run that released the lock before the registration found no seat
    /// blocked on it (`lockReleasedOffSeat`), and the look sees the lock free: the seat tries
    /// again at once. One that releases it after finds the seat blocked. The fence orders the
    /// look after the registration, as `lockReleasedOffSeat`'s orders its read of the count
    /// after the release: of two threads that each store then load, one sees the other's store.
    func lockBusy(_ key: Int, _ lock: SchedulePoint.Object, label: StaticString, isTaken: () -> Bool) {
        locked {
            guard owns(key) else { return }
            seats[key]!.status = .lockBlocked(lock)
            seats[key]!.blockedOn = label
            lockBlockedCount.wrappingAdd(1, ordering: .relaxed)
            atomicMemoryFence(ordering: .sequentiallyConsistent)
            guard isTaken() else {
                seats[key]!.status = .runnable
                lockBlockedCount.wrappingSubtract(1, ordering: .relaxed)
                note("a lock was released by a thread outside the run while a seat waited for it")
                return
            }
            reschedule(key, mayPreempt: false)
            _ = begin(key)
        }
    }

    func lockReleased(_ key: Int, _ lock: SchedulePoint.Object, label: StaticString) {
        locked {
            guard owns(key) else { return }
            release(lock)
            seats[key]!.lastPoint = label
            lastProgress = .now
            reschedule(key, mayPreempt: true)
        }
    }

    /// `lock` is free: the seats blocked on it may try again.
    private func release(_ lock: SchedulePoint.Object) {
        heldBy[lock] = nil
        for (key, seat) in seats where seat.status == .lockBlocked(lock) {
            seats[key]!.status = .runnable
            lockBlockedCount.wrappingSubtract(1, ordering: .relaxed)
        }
    }

    /// Called holding `lock` (natively): `unlock` releases it once the seat is registered as
    /// waiting, under the table's lock, so a thread outside the run that takes `lock` then and
    /// signals (`conditionSignalledOffSeat`, which takes the table's lock) finds the seat waiting.
    func conditionWait(
        _ key: Int, _ condition: SchedulePoint.Object, releasing lock: SchedulePoint.Object,
        deadline: UInt64?, label: StaticString, unlock: () -> Void
    ) -> Bool {
        locked {
            guard owns(key) else {
                unlock()
                return true
            }
            release(lock)
            if let deadline, deadline <= virtualNow {
                unlock()
                return false
            }
            seats[key]!.status = .waiting(condition, deadline: deadline)
            seats[key]!.blockedOn = label
            seats[key]!.waitOrder = nextWaitOrder
            seats[key]!.timedOut = false
            nextWaitOrder += 1
            unlock()
            reschedule(key, mayPreempt: false)
            let signalled = released || !seats[key]!.timedOut
            _ = begin(key)
            return signalled
        }
    }

    func conditionSignal(
        _ key: Int, _ condition: SchedulePoint.Object, lock: SchedulePoint.Object, all: Bool,
        nativeWaiters: Int, label: StaticString
    ) {
        locked {
            guard owns(key) else { return }
            seats[key]!.lastPoint = label
            lastProgress = .now
            reschedule(key, mayPreempt: true)
            guard owns(key) else { return }
            wake(condition, all: all)
            // Threads sleeping natively: the native signal wakes one (a broadcast every one), and
            // each comes back a seat once it has taken the lock again.
            let expected = seats.values.filter { $0.woken?.condition == condition && !$0.arrived }.count
            let fresh = max(0, nativeWaiters - expected)
            for _ in 0..<(all ? fresh : min(fresh, 1)) {
                addTicket(what: "a thread woken from a native wait on \(label)", handOff: nil, woken: (condition, lock))
            }
        }
    }

    /// Wakes the seats waiting on `condition`: all, or one the strategy draws (in wait order).
    private func wake(_ condition: SchedulePoint.Object, all: Bool) {
        let waiting = seats.values.filter {
            if case .waiting(condition, _) = $0.status { return true } else { return false }
        }.sorted { $0.waitOrder < $1.waitOrder }
        guard !waiting.isEmpty else { return }
        let woken = all ? waiting : [waiting[strategy.draw(waiting.count)]]
        for seat in woken { seats[seat.key]!.status = .runnable }
    }

    func fork(_ key: Int, _ handOff: SchedulePoint.Arrival, label: StaticString) -> RunTicket? {
        locked {
            guard owns(key) else { return nil }
            // The ticket's deinit takes this lock: it must never be released while it is held.
            return RunTicket(table: self, key: addTicket(what: "\(label), \(Self.describe(handOff))", handOff: handOff, woken: nil))
        }
    }

    /// A hand-off's seat, numbered in fork order; its key.
    @discardableResult
    private func addTicket(
        what: String, handOff: SchedulePoint.Arrival?,
        woken: (condition: SchedulePoint.Object, lock: SchedulePoint.Object)?
    ) -> Int {
        let key = drivers + 1 + nextTicket
        var seat = Seat(key: key, name: "t\(nextTicket)", what: what, status: .ticket, handOff: handOff, woken: woken)
        if case .notBefore(let deadline) = handOff {
            seat.realDue = .now + .nanoseconds(Int64(clamping: deadline > virtualNow ? deadline - virtualNow : 0))
        }
        seats[key] = seat
        nextTicket += 1
        strategy.introduce(key)
        return key
    }

    static func describe(_ handOff: SchedulePoint.Arrival) -> String {
        switch handOff {
        case .now: return "handed off now"
        case .lane(let lane): return "handed off in lane \(lane)"
        case .notBefore: return "handed off for a deadline"
        }
    }

    /// The seat's work is done (a hand-off's body returned): it leaves, and hands the baton on.
    func leave(_ key: Int) {
        locked {
            guard owns(key) else {
                seats[key]?.status = .done
                return
            }
            retire(key)
            give(to: decide(current: nil, mayPreempt: false))
        }
    }

    /// A seat that left: drivers stay (for reports); hand-offs go.
    private func retire(_ key: Int) {
        if key <= drivers {
            seats[key]!.status = .done
        } else {
            seats[key] = nil
        }
    }

    /// Whether `key` holds the baton of a run not released: what every seat call checks first.
    private func owns(_ key: Int) -> Bool {
        !released && holder == key && seats[key] != nil
    }

    // MARK: - Hand-offs arriving (on the receiving thread)

    /// The ticket's thread is here: `true` once it holds the baton; `false` (run it natively) if
    /// the run is released, or the ticket arrived before (a job run twice, C7.3) or was withdrawn.
    func arrive(_ key: Int) -> Bool {
        locked {
            guard !released else { return false }
            guard let seat = seats[key], seat.status == .ticket, !seat.arrived else {
                if seats[key] != nil || key < drivers + 1 + nextTicket, !withdrawn.contains(key) {
                    noteViolation(
                        Finding(
                            .c7_3, "work handed to another thread ran twice",
                            expected: "every job handed over runs exactly once",
                            observed: "hand-off t\(key - drivers - 1) arrived a second time"))
                }
                return false
            }
            seats[key]!.arrived = true
            monitor.broadcast()
            waitForBaton(key)
            return begin(key)
        }
    }

    private var withdrawn: Set<Int> = []

    /// The work will not run (a timer disposed): no arrival is expected.
    func withdraw(_ key: Int) {
        locked {
            guard !released, let seat = seats[key], seat.status == .ticket, !seat.arrived else { return }
            withdrawn.insert(key)
            seats[key] = nil
            if holder == key { give(to: decide(current: nil, mayPreempt: false)) }
        }
    }

    /// The ticket was released: if it never arrived and was not withdrawn, its work was dropped.
    func ticketReleased(_ key: Int) {
        locked {
            guard !released, let seat = seats[key], seat.status == .ticket, !seat.arrived, seat.woken == nil else { return }
            seats[key] = nil
            noteViolation(
                Finding(
                    .c7_3, "\(seat.what) was let go without running",
                    expected: "every job handed over runs exactly once", observed: "dropped"))
            if holder == key { give(to: decide(current: nil, mayPreempt: false)) }
        }
    }

    // MARK: - Threads that are no seat

    /// The fence orders the read of the count after the release, as `lockBusy`'s orders a
    /// seat's second look at the lock after its registration: a release either finds the seat
    /// counted, or the seat's look finds the lock free.
    func lockReleasedOffSeat(_ lock: SchedulePoint.Object) {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        guard lockBlockedCount.load(ordering: .relaxed) > 0 else { return }
        locked {
            guard !released, seats.values.contains(where: { $0.status == .lockBlocked(lock) }) else { return }
            release(lock)
            note("a lock was released by a thread outside the run while a seat waited for it")
            if holder == nil { monitor.broadcast() }
        }
    }

    func conditionSignalledOffSeat(_ condition: SchedulePoint.Object, all: Bool) {
        locked {
            guard !released,
                seats.values.contains(where: {
                    if case .waiting(condition, _) = $0.status { return true } else { return false }
                })
            else { return }
            wake(condition, all: all)
            note("a condition a seat waited on was signalled by a thread outside the run")
            if holder == nil { monitor.broadcast() }
        }
    }

    /// A thread back from a native wait on `condition`, holding its lock: the ticket a seat's
    /// signal made for it, if any, arrives (and waits for the baton).
    func adoptWoken(by condition: SchedulePoint.Object, holding lock: SchedulePoint.Object) -> (any ScheduleSeat)? {
        guard let key = arriveWoken(by: condition, holding: lock) else { return nil }
        return RunSeat(table: self, key: key)
    }

    private func arriveWoken(by condition: SchedulePoint.Object, holding lock: SchedulePoint.Object) -> Int? {
        locked {
            guard !released,
                let key = seats.values.filter({ $0.woken?.condition == condition && !$0.arrived })
                    .map(\.key).min()
            else { return nil }
            seats[key]!.arrived = true
            heldBy[lock] = key
            seats[key]!.status = .runnable
            monitor.broadcast()
            waitForBaton(key)
            return begin(key) ? key : nil
        }
    }

    // MARK: - Deciding and handing the baton over

    /// Under the lock, on `key`'s thread holding the baton: picks who goes next and hands the
    /// baton over, then waits until `key` holds it again (or the run is released).
    private func reschedule(_ key: Int, mayPreempt: Bool) {
        let next = decide(current: key, mayPreempt: mayPreempt)
        guard next != key else { return }
        give(to: next)
        waitForBaton(key)
    }

    /// The next seat: `current` itself if it may go on and the point may not switch (or the
    /// strategy keeps it), else the strategy's pick among the candidates, in key order; `nil`
    /// if none (the loop's turn).

    private func decide(current: Int?, mayPreempt: Bool) -> Int? {
        settleWokenNatively()
        let candidates = seats.values.filter(isCandidate).map(\.key).sorted()
        if let current, seats[current]?.status == .runnable {
            if !mayPreempt || candidates.count < 2 { return current }
        }
        guard candidates.count > 1 else { return candidates.first }
        return candidates[strategy.pick(candidates, current: current)]
    }

    private func isCandidate(_ seat: Seat) -> Bool {
        switch seat.status {
        case .runnable: return true
        case .idle: return seat.step.map { $0 < 0 || stepReady?($0) == true } ?? false
        case .ticket: return seat.woken == nil && isDue(seat)
        case .lockBlocked, .waiting, .done: return false
        }
    }

    private func isDue(_ seat: Seat) -> Bool {
        switch seat.handOff {
        case .none, .now?: return true
        case .lane(let lane)?:
            return !seats.values.contains { other in
                if case .lane(lane)? = other.handOff { return other.key < seat.key } else { return false }
            }
        case .notBefore(let deadline)?: return deadline <= virtualNow
        }
    }

    /// Before a decision: a thread a seat's signal woke from a native wait takes the lock by
    /// itself as soon as it is free, so once no seat holds it, the thread is waited for (the
    /// arrival limit) before anything else runs; one that does not come is given up.
    private func settleWokenNatively() {
        while let seat = seats.values.filter({ $0.woken != nil && !$0.arrived && heldBy[$0.woken!.lock] == nil })
            .min(by: { $0.key < $1.key })
        {
            let deadline = Uptime.now + arrivalLimit
            while seats[seat.key]?.arrived == false, !released {
                if !monitor.wait(until: deadline) { break }
            }
            if seats[seat.key]?.arrived == false {
                seats[seat.key] = nil
                note("\(seat.what) did not come back within \(arrivalLimit)")
            }
        }
    }

    private func give(to next: Int?) {
        holder = next
        lastProgress = .now
        pickedAt = .now
        if let next {
            if seats[next]?.arrived == true { seats[next]!.wake.signal() }
        } else {
            monitor.broadcast()
        }
    }

    /// Waits (releasing the lock) until `key` holds the baton or the run is released.
    private func waitForBaton(_ key: Int) {
        while holder != key, !released, let wake = seats[key]?.wake {
            monitor.unlock()
            wake.wait()
            monitor.lock()
        }
    }

    private func note(_ what: String) {
        if notes.count < 5 { notes.append(what) }
    }

    private func noteViolation(_ finding: Finding) {
        if violations.count < 5 { violations.append(finding) }
    }

    // MARK: - The loop's side

    /// How the loop's wait for the seats ended.
    enum Turn {
        /// No seat can go on, nothing is due, no time is left to move.
        case quiescent
        /// The seat holding the baton reached no point within the limit: blocked outside the
        /// primitives (a lock, a semaphore or a wait of the backend's own, which a paused seat may
        /// hold). Named with its last point, and `since` when it reached it (the table's last
        /// progress); the run is released to go on natively.
        case blockedOutside(String, since: Uptime)
        /// A picked hand-off did not arrive in time: the run cannot stay reproducible.
        case notArrived(String)
        /// The phase ran until its cap (real time) without becoming quiescent: its seats kept
        /// going (jobs that hand each other on forever, a timer that re-arms itself forever, the
        /// run's clock jumping to each deadline), or threads outside the run kept making progress. Every
        /// schedule point is progress for the blocked-seat bound, so nothing else ends such a
        /// phase; the run is released to go on natively.
        case capReached
        case released
    }

    /// On the loop's thread: hands the baton to the seats and takes it back each time none can go
    /// on, moving the run's clock to the earliest deadline, until nothing moves any more (or
    /// `outsideWork` says no work from outside the run may still come), or the seat holding the
    /// baton reaches no point within `blockedLimit`, or the moment `cap` passes (the loop looks
    /// at least every 20 ms, and between any two of its own steps).
    func runUntilQuiescent(blockedLimit: Duration, cap: Uptime, outsideWork: () -> Bool) -> Turn {
        monitor.lock()
        defer { monitor.unlock() }
        var retries = 0
        while true {
            if released { return .released }
            if cap.hasPassed { return .capReached }
            if let holding = holder {
                let now = Uptime.now
                if let seat = seats[holding], !seat.arrived {
                    let limit = max(pickedAt + arrivalLimit, seat.realDue.map { $0 + arrivalLimit } ?? pickedAt)
                    if now > limit {
                        return .notArrived("\(seat.name) (\(seat.what)) was picked and did not arrive within \(arrivalLimit)")
                    }
                } else if now - lastProgress > blockedLimit {
                    return .blockedOutside(
                        seats[holding].map {
                            "\($0.name) (\($0.what)) reached no schedule point within \(blockedLimit); its last one: \($0.lastPoint)"
                        }
                            ?? "seat \(holding)", since: lastProgress)
                }
                _ = monitor.wait(until: min(now + .milliseconds(20), now + blockedLimit, cap))
                continue
            }
            if let next = decide(current: nil, mayPreempt: false) {
                give(to: next)
                continue
            }
            if advanceClock() { continue }
            // Seats blocked on a lock no seat holds: a thread outside the run holds it (or held
            // it when the run began); they try again, a while.
            if retries < 1_000, retryLockBlocked() {
                retries += 1
                if retries > 100 { monitor.unlock(); usleep(1_000); monitor.lock() }
                continue
            }
            monitor.unlock()
            let more = outsideWork()
            monitor.lock()
            if !more {
                // A seat a thread outside the run unblocked meanwhile goes on; else it is over.
                guard let next = decide(current: nil, mayPreempt: false) else { return .quiescent }
                give(to: next)
            }
        }
    }

    /// Moves the run's clock to the earliest deadline of a timed wait or a timer's hand-off;
    /// the timed waits it reaches time out. `false` if there is none.
    private func advanceClock() -> Bool {
        var earliest: UInt64?
        for seat in seats.values {
            var deadline: UInt64?
            if case .waiting(_, let due?) = seat.status { deadline = due }
            if seat.status == .ticket, case .notBefore(let due)? = seat.handOff, due > virtualNow { deadline = due }
            if let deadline { earliest = min(earliest ?? deadline, deadline) }
        }
        guard let earliest else { return false }
        virtualNow = max(virtualNow, earliest)
        clock.set(virtualNow)
        for (key, seat) in seats {
            if case .waiting(_, let due?) = seat.status, due <= virtualNow {
                seats[key]!.timedOut = true
                seats[key]!.status = .runnable
            }
        }
        return true
    }

    private func retryLockBlocked() -> Bool {
        var any = false
        for (key, seat) in seats {
            if case .lockBlocked(let lock) = seat.status, heldBy[lock] == nil {
                seats[key]!.status = .runnable
                lockBlockedCount.wrappingSubtract(1, ordering: .relaxed)
                any = true
            }
        }
        return any
    }

    /// Waits up to `duration`, or until the monitor is signalled; on the loop's thread, not
    /// holding the lock.
    func pause(_ duration: Duration) {
        locked { _ = monitor.wait(until: .now + duration) }
    }

    /// Exhaustive: the decisions the run made, and why it did not follow its path, if it did not.
    var decisions: [ScheduleDecision] { locked { strategy.decisions } }
    var divergence: String? { locked { strategy.divergence } }

    /// Whether every driver left.
    var driversDone: Bool {
        locked { (0..<drivers).allSatisfy { seats[$0]?.status == .done } }
    }

    /// The drivers' steps under way or next, for the hang diagnosis.
    var driverSteps: [Int] {
        locked { (0..<drivers).compactMap { seats[$0]?.status == .done ? nil : seats[$0]?.step }.filter { $0 >= 0 } }
    }

    /// Every seat that has not left, and where it is: the stuck report (never empty: with no
    /// seat left, it says so; then no thread of the backend is left to run what is pending).
    func describeSeats(program: Program) -> [String] {
        let described = locked {
            seats.values.filter { $0.status != .done }.sorted { $0.key < $1.key }.map { seat in
                var text = "\(seat.name) (\(seat.what))"
                if let step = seat.step, step >= 0, seat.key < drivers {
                    text += seat.status == .idle ? ", before step \(step)" : ", in step \(step) (\(program.steps[step].operation))"
                }
                switch seat.status {
                case .runnable: text += ": could run"
                case .ticket: text += seat.arrived ? ": arrived, not picked" : ": not arrived"
                case .lockBlocked(let lock):
                    let owner = heldBy[lock].flatMap { seats[$0]?.name } ?? "a thread outside the run"
                    text += ": blocked on the lock \(seat.blockedOn), held by \(owner)"
                case .waiting(_, let deadline):
                    text += ": waiting on the condition \(seat.blockedOn)" + (deadline == nil ? "" : " (timed)")
                case .idle: text += ": waiting for its step's inputs"
                case .done: break
                }
                return text
            }
        }
        return described.isEmpty ? ["none left (every driver finished, every thread handed work returned or ended)"] : described
    }

    /// The end of the run (or its giving up): every seat goes on natively from now on, those
    /// waiting return (a wait as a spurious wake-up, a blocked lock to try natively). The run's
    /// clock follows the system's from before the seats learn of it (`RunClock.release()`): a
    /// released thread reads the system's clock, and its events are stamped on it.
    func releaseAll() {
        locked {
            clock.release()
            released = true
            releasedFlag.store(true, ordering: .releasing)
            stepReady = nil
            for seat in seats.values { seat.wake.signal() }
            monitor.broadcast()
        }
    }
}

/// A seat of a run of the seated engine: what ScheduleKit's primitives call on its thread.
final class RunSeat: ScheduleSeat {
    let table: SeatTable
    let key: Int

    init(table: SeatTable, key: Int) {
        self.table = table
        self.key = key
    }

    var controlsSynchronization: Bool { !table.isReleased }
    func pointReached(_ kind: SchedulePoint.Kind, label: StaticString) { table.point(key, kind, label: label) }
    func lockAcquired(_ lock: SchedulePoint.Object, label: StaticString) { table.lockAcquired(key, lock) }
    func lockBusy(_ lock: SchedulePoint.Object, label: StaticString, isTaken: () -> Bool) {
        table.lockBusy(key, lock, label: label, isTaken: isTaken)
    }
    func lockReleased(_ lock: SchedulePoint.Object, label: StaticString) { table.lockReleased(key, lock, label: label) }

    func conditionWait(
        _ condition: SchedulePoint.Object, releasing lock: SchedulePoint.Object,
        deadline: UInt64?, label: StaticString, unlock: () -> Void
    ) -> Bool {
        table.conditionWait(key, condition, releasing: lock, deadline: deadline, label: label, unlock: unlock)
    }

    func conditionSignal(
        _ condition: SchedulePoint.Object, lock: SchedulePoint.Object, all: Bool,
        nativeWaiters: Int, label: StaticString
    ) {
        table.conditionSignal(key, condition, lock: lock, all: all, nativeWaiters: nativeWaiters, label: label)
    }

    func fork(_ handOff: SchedulePoint.Arrival, label: StaticString) -> (any ScheduleTicket)? {
        table.fork(key, handOff, label: label)
    }

    func leave() {
        table.leave(key)
    }

    var now: UInt64 { table.clock.now }
}

/// Work a seat of the seated engine handed to another thread (`SchedulePoint.fork`).
final class RunTicket: ScheduleTicket {
    let table: SeatTable
    let key: Int

    init(table: SeatTable, key: Int) {
        self.table = table
        self.key = key
    }

    deinit { table.ticketReleased(key) }

    func arrive() -> (any ScheduleSeat)? {
        guard table.arrive(key) else { return nil }
        return RunSeat(table: table, key: key)
    }

    func withdraw() { table.withdraw(key) }
}
