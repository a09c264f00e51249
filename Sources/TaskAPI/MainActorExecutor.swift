internal import ScheduleKit

/// The main actor as an executor (C9.8): jobs run one at a time, in submission order, isolated
/// to the main actor, so `MainActor.assumeIsolated` works inside them. `MainExecutor.mainActor`
/// wraps it: the default `mainExecutor` of a backend that names none.
///
/// Jobs wait in a FIFO of this executor's own; while it holds jobs, one Swift task on the main
/// actor drains it. They run only while the program's main thread serves the main actor: an
/// app's run loop, `dispatchMain()`, `RunLoop.main.run()`, or an `async` `main` that is waiting;
/// or while the main thread runs them itself, in `backend.runMainLoop(until:)` or
/// `runMainLoop()` (C9.8; on the main thread the main actor's isolation holds).
public final class MainActorExecutor: AsyncTaskExecutor {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var scheduled = false
    }

    private let state = ConditionLock(State(), label: "main actor executor")

    /// The one main-actor executor of the process.
    public static let shared = MainActorExecutor()

    /// `true` inside the drain of this executor's jobs (a task-local of the draining task).
    @TaskLocal private static var draining = false

    private init() {}

    public func execute(_ job: @escaping @Sendable () -> Void) {
        let schedule = state.withLock { state -> Bool in
            state.jobs.append(job)
            defer { state.scheduled = true }
            return !state.scheduled
        }
        // Wakes the main thread if it serves the jobs itself (`serve(until:)`).
        state.signal()
        if schedule {
            Task { @MainActor in self.drain() }
        }
    }

    /// `true` inside one of this executor's jobs (C9.7).
    public var isCurrent: Bool { Self.draining }

    @MainActor
    private func drain() {
        Self.$draining.withValue(true) {
            while true {
                let batch = state.withLock { state -> [@Sendable () -> Void] in
                    if state.jobs.isEmpty { state.scheduled = false }
                    defer { state.jobs = [] }
                    return state.jobs
                }
                if batch.isEmpty { return }
                for job in batch { job() }
            }
        }
    }

    /// Runs this executor's jobs on the calling thread, in order, waiting without spinning while
    /// there are none, until `done()` holds after a job; `true` then. Returns `false` at once,
    /// running nothing, when not called on the main thread (where the main actor's isolation
    /// holds) or when called from inside one of its jobs (which would run later jobs first).
    ///
    /// The Swift task that `execute` scheduled stays scheduled: if the main actor is served
    /// later, it drains what is left.
    public func serve(until done: () -> Bool) -> Bool {
        guard MainThread.isCurrent, !isCurrent else { return false }
        Self.$draining.withValue(true) {
            while !done() {
                state.lock()
                while state.guarded.jobs.isEmpty { state.wait() }
                var batch = state.guarded.jobs[...]
                state.guarded.jobs = []
                state.unlock()
                while let job = batch.popFirst() {
                    job()
                    if done() { break }
                }
                // Jobs after the one that ended the loop stay first in line.
                if !batch.isEmpty { state.withLock { $0.jobs.insert(contentsOf: batch, at: 0) } }
            }
        }
        return true
    }
}

/// An executor usable both as an `AsyncTaskExecutor` and as the executor of an actor (C9.9).
public typealias ActorExecutor = AsyncTaskExecutor & SerialExecutor

extension TaskBackend {
    /// `mainExecutor` default: the main actor (C9.8). Disfavored, as every default of a
    /// requirement: `backend.mainExecutor` then has one candidate, the requirement (C9.1).
    @_disfavoredOverload
    public var mainExecutor: MainExecutor { MainExecutor.mainActor }

    /// `runMainLoop(until:)` default: the main thread runs `MainExecutor.mainActor`'s jobs until
    /// `task` has completed (C9.8); `false` at once if this backend's `mainExecutor` is another,
    /// off the main thread, or inside a main-executor job. Disfavored, as every default of a
    /// requirement (C9.1).
    @_disfavoredOverload
    @discardableResult
    public func runMainLoop<T>(until task: any AsyncTask<T>) -> Bool {
        let executor = MainActorExecutor.shared
        guard mainExecutor.executor === executor, MainThread.isCurrent, !executor.isCurrent else { return false }
        // Wakes the loop once the task is done, so that it notices.
        task.whenComplete(on: inlineExecutor) { _ in executor.execute {} }
        return executor.serve { task.isCompleted }
    }

    /// `runMainLoop()` default: the main thread runs `MainExecutor.mainActor`'s jobs for the rest
    /// of the program (C9.8); `false` at once if this backend's `mainExecutor` is another, off the
    /// main thread, or inside a main-executor job. Disfavored, as every default of a requirement
    /// (C9.1).
    @_disfavoredOverload
    @discardableResult
    public func runMainLoop() -> Bool {
        let executor = MainActorExecutor.shared
        guard mainExecutor.executor === executor else { return false }
        return executor.serve { false }
    }

    /// A new serial executor (C7.2) that is also a Swift `SerialExecutor`, so an actor can be
    /// pinned to it (C9.9); `nil` if this backend's serial executors are not (every backend of
    /// this package's are). A `PinnedActor` runs on one, and continuations registered on the
    /// actor take it `isolated` (C9.10):
    ///
    ///     actor Screen: PinnedActor {
    ///         nonisolated let executor: any ActorExecutor
    ///         var title = ""
    ///         init(executor: any ActorExecutor) { self.executor = executor }
    ///     }
    ///     task.continueWith(on: screen) { screen, outcome in screen.title = "done" }
    public func makeActorExecutor(label: String) -> (any ActorExecutor)? {
        makeSerialExecutor(label: label) as? any ActorExecutor
    }
}
