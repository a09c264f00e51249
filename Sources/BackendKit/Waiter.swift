import ScheduleKit
import Synchronization
import TaskAPI

/// A caller blocked in `wait()` (C6.1, C6.2, C6.3): spins briefly on an atomic flag, then sleeps
/// on a condition variable until the task's completion wakes it; the caller then reads the
/// outcome from the task. It is registered as a continuation without an executor, so waking
/// it allocates nothing and a timed-out wait can find and remove it.
///
/// The flag is only the spin's hint: the condition decides (and a controlled run, in which the
/// spin polls once, schedules the condition's lock, wait and signal).
///
/// On a pool worker the whole wait, spin included, is reported to the pool at once, so a
/// replacement worker can start while this one spins (C6.4): under load a spin can be descheduled,
/// and nested waits must not add up such delays before the work they wait for gets a thread.
final class Waiter: KitContinuation, @unchecked Sendable {
    // @unchecked: restated; both properties are `let`s of Sendable types.
    private let woken = ConditionLock<Bool>(false, label: "Waiter (a blocked wait())")
    private let done = Atomic(false)
    #if PlantedBugs
    /// The planted bug of the task's backend (`KitPlantedBug`).
    private let plantedBugs: PlantedBugSwitch

    init(plantedBugs: PlantedBugSwitch) {
        self.plantedBugs = plantedBugs
    }
    #endif

    /// A waker (`KitContinuation.isWaker`): its `run` only signals the waiting thread.
    override var isWaker: Bool { true }

    override func run(_ outcome: KitCompletion, from antecedent: TaskCore) {
        woken.withLock { $0 = true }
        woken.signal()
        done.store(true, ordering: .releasing)
    }

    /// Blocks until woken, or until `deadline` (monotonic nanoseconds) if there is one; `false`
    /// if the deadline passed first.
    func wait(until deadline: UInt64?) -> Bool {
        blockingCall {
            _ = Spin.until(polls: 512, busy: 512) { done.load(ordering: .acquiring) }
            #if PlantedBugs
            if checksApart(timed: deadline != nil) { return sleepAfterCheckingApart(until: deadline) }
            #endif
            woken.lock()
            defer { woken.unlock() }
            while true {
                if woken.guarded { return true }
                if let deadline {
                    if !woken.wait(until: deadline) { return woken.guarded }
                } else {
                    woken.wait()
                }
            }
        }
    }

    #if PlantedBugs
    /// Whether a planted bug makes this wait check and sleep apart: `waiterChecksThenSleeps`
    /// in every wait, `waiterSleepsToDeadline` in a timed one.
    private func checksApart(timed: Bool) -> Bool {
        plantedBugs.isOn(KitPlantedBug.waiterChecksThenSleeps) || (timed && plantedBugs.isOn(KitPlantedBug.waiterSleepsToDeadline))
    }

    /// The planted bugs `waiterChecksThenSleeps` and `waiterSleepsToDeadline`: the check and the
    /// sleep in two critical sections.
    private func sleepAfterCheckingApart(until deadline: UInt64?) -> Bool {
        if woken.withLock({ $0 }) { return true }
        woken.lock()
        defer { woken.unlock() }
        repeat {
            if let deadline {
                if !woken.wait(until: deadline) { return woken.guarded }
            } else {
                woken.wait()
            }
        } while !woken.guarded
        return true
    }
    #endif
}
