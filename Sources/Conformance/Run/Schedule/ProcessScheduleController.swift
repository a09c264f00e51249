import ScheduleKit
import Synchronization
import TaskAPI

/// The process's `ScheduleController` while controlled runs are under way (several may be, on
/// other tests' threads): installed by the first run that begins, removed by the last that ends.
/// Each seat answers for its own thread; what happens on threads that are no seat (a release, a
/// signal, a thread back from a native wait) goes to every run of the seated engine
/// (`SeatedRun`), which ignores what is not its own.
final class ProcessScheduleController: ScheduleController {
    static let shared = ProcessScheduleController()

    private struct State {
        var users = 0
        var listeners: [ObjectIdentifier: any OffSeatListener] = [:]
    }

    /// A plain lock: the harness's own locks are never schedule points.
    private let state = PlainLocked(State())
    /// How many listeners there are, read without the lock: most releases off any seat happen
    /// while no seated run is under way, or in threads no run knows.
    private let listenerCount = Atomic<Int>(0)

    /// A controlled run begins; `listener` (a seated run) hears what happens off its seats.
    func begin(_ listener: (any OffSeatListener)? = nil) {
        state.withLock { state in
            if state.users == 0 { SchedulePoint.install(self) }
            state.users += 1
            if let listener {
                state.listeners[ObjectIdentifier(listener)] = listener
                listenerCount.store(state.listeners.count, ordering: .relaxed)
            }
        }
    }

    /// The run that began with `listener` (or none) ended.
    func end(_ listener: (any OffSeatListener)? = nil) {
        state.withLock { state in
            if let listener {
                state.listeners[ObjectIdentifier(listener)] = nil
                listenerCount.store(state.listeners.count, ordering: .relaxed)
            }
            state.users -= 1
            if state.users == 0 { SchedulePoint.uninstall() }
        }
    }

    private var listeners: [any OffSeatListener] {
        guard listenerCount.load(ordering: .relaxed) > 0 else { return [] }
        return state.withLock { Array($0.listeners.values) }
    }

    func lockReleased(_ lock: SchedulePoint.Object) {
        for listener in listeners { listener.lockReleasedOffSeat(lock) }
    }

    func conditionSignalled(_ condition: SchedulePoint.Object, all: Bool) {
        for listener in listeners { listener.conditionSignalledOffSeat(condition, all: all) }
    }

    func adoptWoken(by condition: SchedulePoint.Object, holding lock: SchedulePoint.Object) -> (any ScheduleSeat)? {
        for listener in listeners {
            if let seat = listener.adoptWoken(by: condition, holding: lock) { return seat }
        }
        return nil
    }
}

/// What a seated run hears of the threads that are none of its seats.
protocol OffSeatListener: AnyObject, Sendable {
    func lockReleasedOffSeat(_ lock: SchedulePoint.Object)
    func conditionSignalledOffSeat(_ condition: SchedulePoint.Object, all: Bool)
    /// The seat a thread back from a native wait on `condition` becomes, if this run's seat
    /// signalled it; blocks until that seat may run.
    func adoptWoken(by condition: SchedulePoint.Object, holding lock: SchedulePoint.Object) -> (any ScheduleSeat)?
}
