#if PlantedBugs
import ScheduleKit

/// The bug planted in BackendThreads (ScheduleKit's `PlantedBug`): compiled only under the
/// package trait `PlantedBugs`.
public enum ThreadsPlantedBug: String, PlantedBug {
    /// The serial executor marks its drain unscheduled when it takes the last queued job, before
    /// running it: a job queued meanwhile schedules a second drain, which runs it beside the
    /// first (two jobs at once: C7.2).
    case serialEndsBeforeLastJob
}
#endif
