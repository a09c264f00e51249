import Dispatch
import TaskAPI

/// Where the runtime's main-actor check holds, asked without stopping the process (as
/// `MainActor.assumeIsolated` would): on the process's main thread, or in a job of the main
/// queue, which Dispatch serves on a thread of its own once the main thread has called
/// `dispatchMain()` (a Swift Testing exit test's child process on Linux). The main-executor
/// checks judge with it where a job ran (C9.8) before they register any `@MainActor` body.
enum MainThreadContext {
    /// Marks the main queue, so that `DispatchQueue.getSpecific` finds the mark in its jobs.
    private static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// `true` on the main thread or in a main-queue job.
    static var isCurrent: Bool {
        MainThread.isCurrent || DispatchQueue.getSpecific(key: key) == true
    }

    /// Marks the main queue now, before any job could ask from it.
    static func prepare() { _ = key }
}
