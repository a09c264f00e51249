import Dispatch
import TaskAPI

extension ActorsBackend {
    /// The main executor (C9.8): the main actor, `MainExecutor.mainActor`. Its jobs run on the
    /// main thread (on Linux after `dispatchMain()`, the Dispatch thread serving the main queue),
    /// in order, while the main thread serves the main actor: an app's run loop, `runMainLoop()`,
    /// `runMainLoop(until:)`, `dispatchMain()` or an `async` `main` that is waiting.
    public var mainExecutor: MainExecutor { .mainActor }

    /// Serves the main actor, and with it the main executor (`MainExecutor.mainActor`, C9.8), for
    /// the rest of the program: `dispatchMain()`, so that main-actor Swift tasks run too (the
    /// main actor's executor is the main queue). Never returns when called on the main thread;
    /// returns `false` at once, running nothing, on another thread or from inside a
    /// main-executor job (where `dispatchMain()` would stop the process). `runMainLoop(until:)`
    /// is TaskAPI's: the main thread runs the main executor's jobs itself until a task completes.
    @discardableResult
    public func runMainLoop() -> Bool {
        guard MainThread.isCurrent, !mainExecutor.isCurrent else { return false }
        dispatchMain()
    }
}
