import BackendKit
import ScheduleKit
import Synchronization
import TaskAPI

/// The main executor of the threads backend (C9.8): a FIFO of jobs that the program's main thread
/// runs, one at a time, when it calls `runMainLoop(until:)`, `runMainLoop()` or
/// `ThreadsBackend.drainMainLoop()`. No Dispatch, no run loop: the main thread is the worker.
///
/// Jobs run on the main thread and on no other, so `MainActor.assumeIsolated` works inside them
/// when the loop is run from code that has no other isolation (top-level code, a plain
/// `main()`): the runtime takes the main thread for the main actor's.
final class ThreadsMainLoop: AsyncTaskExecutor {
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
    var isCurrent: Bool { MainThread.isCurrent && running.load(ordering: .relaxed) }

    /// Runs jobs, waiting for more when there are none, until `done()` holds after a job.
    /// Returns `false` at once, running nothing, if not called on the main thread or if called
    /// from inside one of its jobs.
    func run(until done: () -> Bool) -> Bool {
        guard MainThread.isCurrent, !isCurrent else { return false }
        while !done() {
            state.lock()
            while state.guarded.isEmpty { state.wait() }
            let job = state.guarded.pop()
            state.unlock()
            runJob(job)
        }
        return true
    }

    /// Runs the jobs queued now (not those they queue); returns how many ran, or `nil` if not
    /// called on the main thread or if called from inside one of its jobs.
    func drain() -> Int? {
        guard MainThread.isCurrent, !isCurrent else { return nil }
        let count = state.withLock { $0.count }
        for _ in 0..<count {
            let job = state.withLock { $0.pop() }
            guard !job.isEmpty else { break }
            runJob(job)
        }
        return count
    }

    private func runJob(_ job: consuming JobRing.Slot) {
        running.store(true, ordering: .relaxed)
        job.run()
        running.store(false, ordering: .relaxed)
    }
}

extension ThreadsBackend {
    /// The main executor (C9.8): jobs run on the main thread, in order, while it runs
    /// `runMainLoop(until:)` or `runMainLoop()` (or `drainMainLoop()` from a loop of its own).
    /// Shared by every threads backend of the process.
    public var mainExecutor: MainExecutor { Self.main }

    private static let main = MainExecutor(ThreadsMainLoop.shared)

    /// Runs the main executor's jobs on the calling thread, which must be the main thread, until
    /// `task` has completed; waits (without spinning) while there are none (C9.8). A
    /// command-line program ends its top-level code with it:
    ///
    ///     let done = work.continueWith(on: backend.mainExecutor) { outcome in show(outcome) }
    ///     backend.runMainLoop(until: done)
    ///
    /// Returns `false` at once, running nothing, when called on another thread or from inside a
    /// main-executor job. The same as `ThreadsBackend.runMainLoop(until:)`: the main loop is one
    /// per process.
    @discardableResult
    public func runMainLoop<T>(until task: any AsyncTask<T>) -> Bool {
        Self.runMainLoop(until: task)
    }

    /// Runs the main executor's jobs on the calling thread, which must be the main thread, for
    /// the rest of the program (C9.8); waits (without spinning) while there are none. Never
    /// returns on the main thread; returns `false` at once, running nothing, on another thread
    /// or from inside a main-executor job.
    @discardableResult
    public func runMainLoop() -> Bool {
        ThreadsMainLoop.shared.run { false }
    }

    /// `runMainLoop(until:)` for code that holds no backend: the main loop is one per process.
    @discardableResult
    public static func runMainLoop<T>(until task: any AsyncTask<T>) -> Bool {
        let loop = ThreadsMainLoop.shared
        guard MainThread.isCurrent, !loop.isCurrent else { return false }
        // Wakes the loop once the task is done, so that it notices.
        task.whenComplete(on: task.backend.inlineExecutor) { _ in loop.execute {} }
        return loop.run { task.isCompleted }
    }

    /// Runs the main executor's jobs queued now, on the calling thread, which must be the main
    /// thread; for a program with a loop of its own. Returns how many ran, or `nil` (running
    /// nothing) when called on another thread or from inside a main-executor job.
    @discardableResult
    public static func drainMainLoop() -> Int? {
        ThreadsMainLoop.shared.drain()
    }
}
