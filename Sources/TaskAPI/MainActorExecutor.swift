internal import ScheduleKit

/// The main actor as an executor (C9.8): jobs run one at a time, in submission order, isolated
/// to the main actor, so `MainActor.assumeIsolated` works inside them. `MainExecutor.mainActor`
/// wraps it: the default `mainExecutor` of a backend that names none.
///
/// Jobs wait in a FIFO of this executor's own; while it holds jobs, one Swift task on the main
/// actor drains it. They run only while the program's main thread serves the main actor: an
/// app's run loop, `dispatchMain()`, `RunLoop.main.run()`, or an `async` `main` that is waiting.
public final class MainActorExecutor: Executor {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var scheduled = false
    }

    private let state = Locked(State())

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
}

/// An executor usable both as an `Executor` and as the executor of an actor (C9.9).
public typealias ActorExecutor = Executor & SerialExecutor

extension TaskBackend {
    /// `mainExecutor` default: the main actor (C9.8). Disfavored, as every default of a
    /// requirement: `backend.mainExecutor` then has one candidate, the requirement (C9.1).
    @_disfavoredOverload
    public var mainExecutor: MainExecutor { MainExecutor.mainActor }

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
