import ScheduleKit
import TaskAPI

/// A backend built on the kit: it contributes its executors and its timer; everything else
/// (task state, continuations, trampoline, waiting, await) is the kit's, through the defaults
/// this protocol's extensions give (`makeSource`, `completed`, `run`, `whenAll`, ...).
///
/// It requires nothing beyond `TaskBackend` that has no default: `unretainedDefaultQueue` is
/// `nil` unless the backend answers its default executor. An earlier `enqueueDirectly(_:on:)`
/// let a backend take jobs for its own executors without the `execute` witness call; it cost
/// more than the call it saved (a dynamic cast per executor kind: 14 to 25 instructions more
/// per link handed to a default executor, callgrind), and was removed.
public protocol KitBackend: TaskBackend, AnyObject {
    /// The default executor when it is a `KitQueueExecutor` the backend holds (a `let`), as an
    /// unretained reference; `nil` (the default) otherwise. A derived task placed on it is
    /// handed to it by a push with no class test and no retain and release of the executor
    /// around it (its placement holds the executor): 35 instructions less per hop (callgrind,
    /// the default-executor link). A plain read, valid while the backend lives.
    var unretainedDefaultQueue: Unmanaged<KitQueueExecutor>? { get }

    #if PlantedBugs
    /// The planted bug the backend was made with, which the objects it makes while a program
    /// runs carry (a task's waiters, its cancellation sources): a requirement, so that the task
    /// core reads it through the witness table, with no cast. Only under the package trait
    /// `PlantedBugs`; `.off` by default.
    var plantedBugs: PlantedBugSwitch { get }
    #endif
}
