import BackendKit
import ScheduleKit
import Synchronization
import TaskAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The main executor of the threads backend (C9.8): a FIFO of jobs that the program's main thread
/// runs, one at a time, when it calls `ThreadsBackend.runMainLoop(until:)` or
/// `ThreadsBackend.drainMainLoop()`. No Dispatch, no run loop: the main thread is the worker.
///
/// Jobs run on the main thread and on no other, so `MainActor.assumeIsolated` works inside them
/// when the loop is run from code that has no other isolation (top-level code, a plain
/// `main()`): the runtime takes the main thread for the main actor's.
final class ThreadsMainLoop: Executor {
    private let state = ConditionLock(JobRing(keptCapacity: 4_096), label: "threads main loop")
    /// `true` while the main thread runs one of the loop's jobs (for `isCurrent`).
    private let running = Atomic(false)

    /// The one main loop of the process.
    static let shared = ThreadsMainLoop()

    func execute(_ job: @escaping @Sendable () -> Void) {
        state.withLock { $0.push(job) }
        state.signal()
    }

    /// `true` inside one of the loop's jobs (C9.7).
    var isCurrent: Bool { Self.isMainThread && running.load(ordering: .relaxed) }

    /// Runs jobs, waiting for more when there are none, until `done()` holds after a job.
    /// Returns `false` at once, running nothing, if not called on the main thread.
    func run(until done: () -> Bool) -> Bool {
        guard Self.isMainThread else { return false }
        while !done() {
            state.lock()
            while state.guarded.isEmpty { state.wait() }
            let job = state.guarded.pop().job
            state.unlock()
            if let job { runJob(job) }
        }
        return true
    }

    /// Runs the jobs queued now (not those they queue); returns how many ran, or `nil` if not
    /// called on the main thread.
    func drain() -> Int? {
        guard Self.isMainThread else { return nil }
        let count = state.withLock { $0.count }
        for _ in 0..<count {
            guard let job = state.withLock({ $0.pop() }).job else { break }
            runJob(job)
        }
        return count
    }

    private func runJob(_ job: () -> Void) {
        running.store(true, ordering: .relaxed)
        job()
        running.store(false, ordering: .relaxed)
    }

    /// `true` on the process's main thread: on Linux, the thread whose id is the process id (what
    /// the Swift runtime checks too), read from `/proc/thread-self` ("pid/task/tid"), since
    /// `gettid` is not imported into Swift.
    static var isMainThread: Bool {
        #if canImport(Darwin)
        return pthread_main_np() != 0
        #else
        var buffer = [CChar](repeating: 0, count: 64)
        let length = readlink("/proc/thread-self", &buffer, buffer.count - 1)
        guard length > 0 else { return false }
        let link = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let parts = link.split(separator: "/")
        return parts.count == 3 && parts[0] == parts[2]
        #endif
    }
}

extension ThreadsBackend {
    /// The main executor (C9.8): jobs run on the main thread, in order, while it runs
    /// `ThreadsBackend.runMainLoop(until:)` (or `drainMainLoop()` from a loop of its own).
    /// Shared by every threads backend of the process.
    public var mainExecutor: MainExecutor { Self.main }

    private static let main = MainExecutor(ThreadsMainLoop.shared)

    /// Runs the main executor's jobs on the calling thread, which must be the main thread, until
    /// `task` has completed; waits (without spinning) while there are none. A command-line
    /// program ends its top-level code with it:
    ///
    ///     let done = work.continueWith(on: backend.mainExecutor) { outcome in show(outcome) }
    ///     ThreadsBackend.runMainLoop(until: done)
    ///
    /// Returns `false` at once, running nothing, when called on another thread.
    @discardableResult
    public static func runMainLoop<T>(until task: any AsyncTask<T>) -> Bool {
        let loop = ThreadsMainLoop.shared
        // Wakes the loop once the task is done, so that it notices.
        task.whenComplete(on: task.backend.inlineExecutor) { _ in loop.execute {} }
        return loop.run { task.isCompleted }
    }

    /// Runs the main executor's jobs queued now, on the calling thread, which must be the main
    /// thread; for a program with a loop of its own. Returns how many ran, or `nil` (running
    /// nothing) when called on another thread.
    @discardableResult
    public static func drainMainLoop() -> Int? {
        ThreadsMainLoop.shared.drain()
    }
}
