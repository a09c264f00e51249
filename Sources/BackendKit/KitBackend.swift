import TaskAPI

/// A backend built on the kit: it contributes its executors and its timer; everything else
/// (task state, continuations, trampoline, waiting, await) is the kit's, through the defaults
/// this protocol's extensions give (`makeSource`, `completed`, `run`, `whenAll`, ...).
///
/// It requires nothing beyond `TaskBackend`. An earlier `enqueueDirectly(_:on:)` let a backend
/// take jobs for its own executors without the `execute` witness call; it cost more than the
/// call it saved (a dynamic cast per executor kind: 14 to 25 instructions more per link
/// handed to a default executor, callgrind), and was removed.
public protocol KitBackend: TaskBackend, AnyObject {}
