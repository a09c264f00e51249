#if PlantedBugs
import ScheduleKit

/// The bugs planted in BackendActors (ScheduleKit's `PlantedBug`): compiled only under the
/// package trait `PlantedBugs`.
public enum ActorsPlantedBug: String, PlantedBug {
    /// `Mailbox`: a drain that found nothing left gives up ownership with a plain store instead
    /// of a compare-exchange, dropping a message pushed in between (a lost job: C2.1, C7.3).
    case mailboxGivesUpBlindly
    /// `Mailbox`: a drain that took a single message gives up ownership before running it; a push
    /// meanwhile becomes the owner and starts a second drain, which runs its message beside the
    /// first (two jobs at once: C7.2).
    case mailboxGivesUpBeforeLastMessage
}
#endif
