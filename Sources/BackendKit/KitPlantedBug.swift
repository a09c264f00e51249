#if PlantedBugs
import ScheduleKit

/// The bugs planted in BackendKit (ScheduleKit's `PlantedBug`): compiled only under the package
/// trait `PlantedBugs`.
public enum KitPlantedBug: String, PlantedBug {
    /// `Waiter.wait` checks whether it was woken and goes to sleep in two critical sections: a
    /// completion in between signals no one, and the waiter sleeps for good (a lost wake-up:
    /// C6.1, C6.3).
    case waiterChecksThenSleeps
    /// `ThreadPool`: an idle worker that found the queue empty parks without looking at it again
    /// under the lock, so a push made meanwhile (which saw no parked worker to wake) waits for
    /// good (a lost job: C2.1, C7.3).
    case poolParksWithoutRecheck
    /// `Waiter`, in a timed wait only (`wait(timeout:)`), checks whether it was woken and goes to
    /// sleep in two critical sections: a completion in between signals no one, and the wait
    /// sleeps to its deadline, returning the outcome late (a lost wake-up in `wait(timeout:)`:
    /// C6.2).
    case waiterSleepsToDeadline
    /// `ThreadPool`: a push wakes a parked worker, then queues its job, in two critical sections;
    /// the worker, woken before the job is there, parks again, and the job waits for good (a lost
    /// wake-up: C2.1, C7.3).
    case poolSignalsBeforePush
    /// The task core hands a source's kept inline body (its first inline `whenComplete`) over
    /// after the continuations registered after it (`whenComplete` order: C2.4).
    case inlineBodyHandedLast
    /// The task core runs an inline registration on a completed task in place even while the
    /// thread runs inline work, instead of queueing it behind that work (C2.7).
    case inPlaceInsideInlineWork
    /// The task core hands a continuation registered during a delivery (from inside a
    /// continuation) over before the rest of the batch being delivered, which was registered
    /// before it (nested registration: C2.4).
    case nestedRegistrationOvertakes
}

extension KitBackend {
    /// No planted bug, for a backend on the kit that carries none (this package's backends
    /// carry the one planted when they were made).
    public var plantedBugs: PlantedBugSwitch { .off }
}
#endif
