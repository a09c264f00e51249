import ScheduleKit
import Synchronization
import TaskAPI

/// The process's `ScheduleController` while controlled runs are under way (several may be, on
/// other tests' threads): installed by the first run that begins, removed by the last that ends.
/// Each seat answers for its own thread; what happens on threads that are no seat (a release, a
/// signal, a thread back from a native wait) goes to every run of the seated engine
/// (`SeatedRun`), which ignores what is not its own.
///
/// Threads that are no seat take no lock here: every release a thread outside the runs makes
/// (other tests' threads, a backend author's other work) comes through, and with one lock for
/// the process they queued on it behind each other and behind the runs' own threads (a chain of
/// 356 maps on the inline executor makes 2,145 releases). They read the listeners as an immutable
/// snapshot (`Listeners`) published through an atomic reference; `begin` and `end`, once per run,
/// publish a new one under the lock. See `publish` for why a snapshot a reader still holds is
/// never freed under it.
final class ProcessScheduleController: ScheduleController {
    static let shared = ProcessScheduleController()

    /// The listeners at one moment: never changed once published.
    private final class Listeners: Sendable {
        let all: [any OffSeatListener]
        init(_ all: [any OffSeatListener]) { self.all = all }
    }

    private struct State {
        var users = 0
        var listeners: [ObjectIdentifier: any OffSeatListener] = [:]
        /// The published snapshot (`published` points to it).
        var current: Listeners
        /// Snapshots replaced while a reader may still have held them: freed by the first
        /// publication that finds no reader in flight.
        var retired: [Listeners] = []
    }

    /// A plain lock: the harness's own locks are never schedule points. Taken by `begin` and
    /// `end` only.
    private let state: PlainLocked<State>
    /// `state.current`, unretained: readers take it without the lock. Kept alive by `state`
    /// (current or retired) as long as a reader may hold it.
    private let published: Atomic<Unmanaged<Listeners>>
    /// Readers between taking `published` and their last use of it.
    private let readers = Atomic<Int>(0)
    /// How many listeners there are, read before anything else: most releases off any seat
    /// happen while no seated run is under way (an interposed run installs the controller with
    /// no listener).
    private let listenerCount = Atomic<Int>(0)

    private init() {
        let empty = Listeners([])
        state = PlainLocked(State(current: empty))
        published = Atomic(Unmanaged.passUnretained(empty))
    }

    /// A controlled run begins; `listener` (a seated run) hears what happens off its seats.
    func begin(_ listener: (any OffSeatListener)? = nil) {
        let freed = state.withLock { state in
            if state.users == 0 { SchedulePoint.install(self) }
            state.users += 1
            guard let listener else { return [Listeners]() }
            state.listeners[ObjectIdentifier(listener)] = listener
            return publish(&state)
        }
        _ = freed  // Released here, outside the lock: a listener's deinit runs on this thread.
    }

    /// The run that began with `listener` (or none) ended.
    func end(_ listener: (any OffSeatListener)? = nil) {
        let freed = state.withLock { state in
            assert(state.users > 0, "ProcessScheduleController.end: no run began (users \(state.users))")
            var freed: [Listeners] = []
            if let listener {
                state.listeners[ObjectIdentifier(listener)] = nil
                freed = publish(&state)
            }
            state.users -= 1
            if state.users == 0 { SchedulePoint.uninstall() }
            return freed
        }
        _ = freed
    }

    /// Under the lock: publishes the listeners as a new snapshot, retires the one it replaces,
    /// and returns the retired snapshots no reader can hold any more (to be released by the
    /// caller once the lock is let go).
    ///
    /// Why none of them is in use (every operation on `published` and `readers` is sequentially
    /// consistent, so all of them fall in one total order S): a reader increments `readers` (I),
    /// then loads `published` (L), and decrements `readers` after its last use (D). A reader
    /// that loaded a retired snapshot did so before the exchange that replaced it (L < X in S),
    /// so it incremented before (I < L < X); the check here (C) comes after X. If C reads 0,
    /// that reader's D came before C (its I did: I < C, and each I is matched by one D), so it is
    /// done with the snapshot. Snapshots retired earlier were replaced before X: the same holds.
    /// The decrement releases and C acquires, so the reader's uses happen before the release.
    private func publish(_ state: inout State) -> [Listeners] {
        let fresh = Listeners(Array(state.listeners.values))
        let replaced = published.exchange(Unmanaged.passUnretained(fresh), ordering: .sequentiallyConsistent)
        assert(
            replaced.toOpaque() == Unmanaged.passUnretained(state.current).toOpaque(),
            "ProcessScheduleController.publish: the published snapshot is not the current one")
        state.retired.append(state.current)
        state.current = fresh
        listenerCount.store(fresh.all.count, ordering: .relaxed)
        guard readers.load(ordering: .sequentiallyConsistent) == 0 else { return [] }
        defer { state.retired = [] }
        return state.retired
    }

    /// Enters as a reader: the published listeners, without a lock (see `publish`), valid until
    /// `leave()`; `nil` (and nothing to leave) while there are none. A listener registered
    /// before the point (its `begin` happens before it) is in the snapshot: the exchange that
    /// published it comes before this load in S. Unretained, and not generic, and the callers
    /// walk the array by index: in a debug build (the test processes) a retain, a generic
    /// context or an iterator costs a metadata lookup or an atomic on a shared count at every
    /// release of every thread.
    private func enter() -> Unmanaged<Listeners>? {
        guard listenerCount.load(ordering: .relaxed) > 0 else { return nil }
        readers.wrappingAdd(1, ordering: .sequentiallyConsistent)
        return published.load(ordering: .sequentiallyConsistent)
    }

    /// The reader is done with the snapshot `enter()` returned.
    private func leave() {
        let before = readers.wrappingSubtract(1, ordering: .sequentiallyConsistent).oldValue
        assert(before > 0, "ProcessScheduleController.leave: a reader left that never entered (\(before))")
    }

    func lockReleased(_ lock: SchedulePoint.Object) {
        guard let snapshot = enter() else { return }
        defer { leave() }
        // Unretained: `state` keeps the snapshot alive until `leave()`.
        snapshot._withUnsafeGuaranteedRef { listeners in
            var index = 0
            while index < listeners.all.count {
                listeners.all[index].lockReleasedOffSeat(lock)
                index += 1
            }
        }
    }

    func conditionSignalled(_ condition: SchedulePoint.Object, all: Bool) {
        guard let snapshot = enter() else { return }
        defer { leave() }
        snapshot._withUnsafeGuaranteedRef { listeners in
            var index = 0
            while index < listeners.all.count {
                listeners.all[index].conditionSignalledOffSeat(condition, all: all)
                index += 1
            }
        }
    }

    /// May block (a listener's `adoptWoken` waits until the seat may run): the snapshot stays
    /// entered meanwhile, which only delays freeing retired snapshots, never a writer.
    func adoptWoken(by condition: SchedulePoint.Object, holding lock: SchedulePoint.Object) -> (any ScheduleSeat)? {
        guard let snapshot = enter() else { return nil }
        defer { leave() }
        return snapshot._withUnsafeGuaranteedRef { listeners -> (any ScheduleSeat)? in
            for listener in listeners.all {
                if let seat = listener.adoptWoken(by: condition, holding: lock) { return seat }
            }
            return nil
        }
    }
}

/// What a seated run hears of the threads that are none of its seats. Called on those threads,
/// holding no lock of the controller's, by every thread of the process that releases or signals
/// off a seat: keep the common case (nothing of this run's) cheap. `SeatTable` checks, before
/// taking its own lock, whether any of its seats is blocked on a lock; a signal and a woken
/// thread take its lock.
protocol OffSeatListener: AnyObject, Sendable {
    func lockReleasedOffSeat(_ lock: SchedulePoint.Object)
    func conditionSignalledOffSeat(_ condition: SchedulePoint.Object, all: Bool)
    /// The seat a thread back from a native wait on `condition` becomes, if this run's seat
    /// signalled it; blocks until that seat may run.
    func adoptWoken(by condition: SchedulePoint.Object, holding lock: SchedulePoint.Object) -> (any ScheduleSeat)?
}
