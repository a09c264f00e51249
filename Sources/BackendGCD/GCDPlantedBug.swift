#if PlantedBugs
import ScheduleKit

/// The bug planted in BackendGCD (ScheduleKit's `PlantedBug`): compiled only under the package
/// trait `PlantedBugs`.
public enum GCDPlantedBug: String, PlantedBug {
    /// The default executor's drainer, finding the queue empty, ends in two critical sections: a
    /// push in between sees every drainer running and submits none, and its job is never run (a
    /// lost job: C2.1, C7.3).
    case drainerEndsInTwoSections
}
#endif
