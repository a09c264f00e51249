/// Why `RuleSuite.runMainExecutorChecks` could not run: it was called where the main executor
/// cannot be served the way its `mainLoop` argument says. A mistake of the caller's, not a
/// failure of the backend: nothing was checked.
public enum MainExecutorCheckError: Error, Equatable, CustomStringConvertible {
    /// `.servedByTheChecks` needs the process's main thread, which it serves the backend's main
    /// loop on; it was called on another thread.
    case notOnTheMainThread
    /// `.servedByTheProcess` blocks its thread while the checks wait for the main executor's
    /// jobs, which the main thread (or the main queue) must be free to run; it was called there.
    case onTheMainThread
    /// Called from inside one of the backend's main-executor jobs, which runs no other job of
    /// that executor until it returns.
    case insideAMainExecutorJob

    public var description: String {
        switch self {
        case .notOnTheMainThread:
            return "runMainExecutorChecks(mainLoop: .servedByTheChecks) must be called on the process's main thread "
                + "(an executable's top-level code), which it serves the backend's main loop on; it was called on another thread. "
                + "Where the main thread already serves the main executor (dispatchMain(), an app's run loop, a Swift Testing "
                + "exit test's child process for a backend whose main executor is the main actor's), call it with "
                + "mainLoop: .servedByTheProcess from another thread"
        case .onTheMainThread:
            return "runMainExecutorChecks(mainLoop: .servedByTheProcess) must be called off the main thread and the main queue, "
                + "which must stay free to run the main executor's jobs while it waits for them; it was called there. On the "
                + "main thread, call it with mainLoop: .servedByTheChecks, and it serves the main loop itself"
        case .insideAMainExecutorJob:
            return "runMainExecutorChecks was called inside one of the backend's main-executor jobs, which runs no other job "
                + "of that executor until it returns; call it from the program's top-level code or another thread"
        }
    }
}
