#if PlantedBugs
public import ScheduleKit

/// The bugs planted in TaskAPI's own code (ScheduleKit's `PlantedBug`): compiled only under the
/// package trait `PlantedBugs`.
public enum TaskAPIPlantedBug: String, PlantedBug {
    /// `StandardCancellationSource.register` checks for a cancellation and stores the handler in
    /// two critical sections, and drops a handler that a cancellation in between refuses: it
    /// never runs (a handler racing `cancel`: C4.2).
    case registerChecksCancelApart
    /// `StandardCancellationSource.register` stores the handler, then runs it itself if it finds
    /// the source cancelled, in two critical sections: a cancellation in between runs it too (a
    /// handler run twice: C4.2).
    case registerRunsHandlerAgain
    /// `StandardCancellationSource.cancel`: a second `cancel()` that finds cancellation requested
    /// returns at once, without waiting for the first one's handlers (C4.1).
    case secondCancelSkipsWait
    /// `PreparedTask.tryStart` checks that the task is not started and marks it started in two
    /// critical sections: two racing starts both win and the body runs twice (C9.3).
    case preparedStartChecksApart
}
#endif
