import Dispatch
import TaskAPI

extension GCDBackend {
    /// The main executor (C9.8): `DispatchQueue.main`. Its jobs run on the main thread, in order,
    /// and `MainActor.assumeIsolated` works inside them (the main actor's executor is the main
    /// queue). They run only while the main thread serves the main queue: an app's run loop,
    /// `dispatchMain()` at the end of a command-line program's top-level code,
    /// `RunLoop.main.run()`, or an `async` `main` that is waiting.
    public var mainExecutor: MainExecutor { Self.main }

    private static let main = MainExecutor(DispatchQueueExecutor(DispatchQueue.main))
}
