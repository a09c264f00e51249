import Dispatch
import TaskAPI

extension GCDBackend {
    /// The main executor (C9.8): the main actor, `MainExecutor.mainActor`, whose executor is the
    /// main queue. Its jobs run on the main thread, in order, and `MainActorExecutor` drains them
    /// from the main queue while the main thread serves it: an app's run loop, `runMainLoop()` or
    /// `dispatchMain()` at the end of a command-line program's top-level code,
    /// `RunLoop.main.run()`, or an `async` `main` that is waiting. `runMainLoop(until:)` runs
    /// them on the main thread itself until a task completes.
    public var mainExecutor: MainExecutor { .mainActor }

    /// Serves the main queue, and with it the main executor, for the rest of the program (C9.8):
    /// `dispatchMain()`, so that blocks queued on `DispatchQueue.main` and main-actor Swift tasks
    /// run too. Never returns when called on the main thread; returns `false` at once, running
    /// nothing, on another thread or from inside a main-executor job (where `dispatchMain()`
    /// would stop the process).
    @discardableResult
    public func runMainLoop() -> Bool {
        guard MainThread.isCurrent, !mainExecutor.isCurrent else { return false }
        dispatchMain()
    }
}
