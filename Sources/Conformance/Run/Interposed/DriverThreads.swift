import Foundation
import ScheduleKit
import TaskAPI

/// The drivers of a controlled run, each on a real thread of its own, of which only one runs at a
/// time: the one holding the baton.
///
/// The controlled loop gives the baton to a driver to run its next step; the driver either
/// finishes the step and gives the baton back, or reaches a schedule point inside a backend
/// operation (`SchedulePoint.reach()`), parks there and gives the baton back mid-step. A parked
/// driver's rest of step is then one more choice for the loop's strategy, under the driver's own
/// key. So a backend's `complete` can be interleaved inside another thread's `register`, and the
/// same seed still makes the same choices, hence the same interleaving.
///
/// Only a step that never waits for another thread (`ProgramOperation.neverWaits`) parks at its points:
/// a `wait()` parked before it registers could otherwise go on, once other drivers ran, into a
/// delivery a parked driver holds, and block the run. A step parks at its first `pointsPerStep`
/// points only: the races worth finding are at the
/// start of an operation (a check, then a store), and a step that completes a long chain on the
/// inline executor would otherwise pay a hand-over of the baton for each of its links.
///
/// Points reached on any other thread (the loop's own, an executor's running a handed-over job, a
/// timer's, a Swift task's) return at once: what they run is atomic for the schedule, as before.
final class DriverThreads: @unchecked Sendable {
    // @unchecked Sendable: every `var` is only touched holding `condition`.

    /// A driver thread's seat: parks it at plain points (`SchedulePoint.reach()`); the
    /// primitives' own points and blocking stay native (this engine does not see them).
    final class Seat: ScheduleSeat {
        let threads: DriverThreads
        let driver: Int
        init(threads: DriverThreads, driver: Int) {
            self.threads = threads
            self.driver = driver
        }

        var controlsSynchronization: Bool { false }
        func pointReached(_ kind: SchedulePoint.Kind, label: StaticString) {
            if kind == .plain { threads.park(driver) }
        }
        // Never called: `controlsSynchronization` is false.
        func lockAcquired(_ lock: SchedulePoint.Object, label: StaticString) {}
        func lockBusy(_ lock: SchedulePoint.Object, label: StaticString, isTaken: () -> Bool) {}
        func lockReleased(_ lock: SchedulePoint.Object, label: StaticString) {}
        func conditionWait(
            _ condition: SchedulePoint.Object, releasing lock: SchedulePoint.Object,
            deadline: UInt64?, label: StaticString, unlock: () -> Void
        ) -> Bool {
            unlock()
            return true
        }
        func conditionSignal(
            _ condition: SchedulePoint.Object, lock: SchedulePoint.Object, all: Bool,
            nativeWaiters: Int, label: StaticString
        ) {}
        func fork(_ handOff: SchedulePoint.Arrival, label: StaticString) -> (any ScheduleTicket)? { nil }
        func leave() {}
        var now: UInt64 { MonotonicClock.systemNow }
    }

    private let execution: ProgramExecution
    /// The drivers' threads' CPU clocks: a step that logs nothing but keeps its thread busy is
    /// progress for the runner's watch (`DriverCPUClocks`).
    let clocks: DriverCPUClocks
    private let condition = NSCondition()
    /// The driver holding the baton; -1: the loop.
    private var holder = -1
    /// Each driver's step given to it and not finished yet.
    private var assigned: [Int?]
    /// Each driver's: parked at a schedule point, mid-step.
    private var parked: [Bool]
    private var started: [Bool]
    /// Each driver's points reached in its current step.
    private var pointsInStep: [Int]
    /// Each driver's: its current step may park at points.
    private var parkable: [Bool]
    /// How many points of one step may park it.
    static let pointsPerStep = 32
    /// The run is over (or given up): points are no-ops, idle threads exit.
    private var released = false

    init(execution: ProgramExecution, hangLimit: Duration) {
        self.execution = execution
        let drivers = execution.program.drivers
        clocks = DriverCPUClocks(drivers: drivers, hangLimit: hangLimit)
        assigned = Array(repeating: nil, count: drivers)
        parked = Array(repeating: false, count: drivers)
        started = Array(repeating: false, count: drivers)
        pointsInStep = Array(repeating: 0, count: drivers)
        parkable = Array(repeating: false, count: drivers)
        ProcessScheduleController.shared.begin()
    }

    /// Whether a driver holds the baton: the loop waits in `resume` for its step to park or end.
    var isRunningStep: Bool {
        condition.lock()
        defer { condition.unlock() }
        return holder != -1
    }

    /// Gives driver `driver` the baton: to run step `step`, or, with `nil`, to go on with the step
    /// it is parked in. Returns once the driver gave the baton back: `true` if it is parked
    /// mid-step, `false` if the step is done.
    func resume(_ driver: Int, step: Int?) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if let step {
            assigned[driver] = step
            if !started[driver] {
                started[driver] = true
                let thread = Thread { [self] in main(driver) }
                thread.stackSize = 4 << 20
                thread.start()
            }
        }
        holder = driver
        condition.broadcast()
        while holder != -1 { condition.wait() }
        return parked[driver]
    }

    /// The end of the run: parked drivers go on without points, idle threads exit. Called once.
    func release() {
        condition.lock()
        let wasReleased = released
        released = true
        condition.broadcast()
        condition.unlock()
        guard !wasReleased else { return }
        ProcessScheduleController.shared.end()
    }

    private func main(_ driver: Int) {
        let seat = Seat(threads: self, driver: driver)
        clocks.register(driver)
        ThreadInfo.underControl = true
        SchedulePoint.setCurrent(seat)
        defer { SchedulePoint.setCurrent(nil) }
        condition.lock()
        while true {
            while holder != driver, !released { condition.wait() }
            guard holder == driver, let step = assigned[driver] else { break }
            pointsInStep[driver] = 0
            parkable[driver] = execution.program.steps[step].operation.neverWaits
            condition.unlock()
            execution.runStep(step)
            condition.lock()
            assigned[driver] = nil
            if holder == driver { holder = -1 }
            condition.broadcast()
        }
        condition.unlock()
        clocks.unregister(driver)
        withExtendedLifetime(seat) {}
    }

    /// A schedule point on driver `driver`'s thread: gives the baton back, parked, and waits for it.
    fileprivate func park(_ driver: Int) {
        condition.lock()
        defer { condition.unlock() }
        guard !released, holder == driver, parkable[driver], pointsInStep[driver] < Self.pointsPerStep else { return }
        pointsInStep[driver] += 1
        parked[driver] = true
        holder = -1
        condition.broadcast()
        while holder != driver, !released { condition.wait() }
        parked[driver] = false
    }
}
