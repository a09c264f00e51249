/// A backend's main executor (C9.8): its jobs run one at a time, in submission order, isolated to
/// the main actor. `backend.mainExecutor` is one.
///
/// It is a type of its own, not an `AsyncTaskExecutor`, so that a continuation registered on it takes a
/// `@MainActor` body, which reads and writes main-actor state directly (C9.10), and so that no
/// call naming it has a second candidate to weigh (C9.1):
///
///     @MainActor final class Screen {
///         var text = ""
///         func show(_ task: any AsyncTask<Int>, on backend: any TaskBackend) {
///             task.continueWith(on: backend.mainExecutor) { outcome in self.text = "\(outcome)" }
///         }
///     }
///
/// Where a plain `AsyncTaskExecutor` is wanted (a factory's executor, `prepare(on:)`, a job that needs no
/// isolation), `executor` is the same queue.
public final class MainExecutor: Sendable {
    /// The main executor as a plain `AsyncTaskExecutor`: the same jobs, in the same order, on the main
    /// actor; a body registered through it is not typed `@MainActor` (C9.8).
    public let executor: any AsyncTaskExecutor

    /// The main executor made of `base`, for a backend's `mainExecutor`. `base` must run every job
    /// it is given on the main actor, so that `MainActor.assumeIsolated` holds inside it (C9.8):
    /// a `@MainActor` body registered on this executor is called there through
    /// `MainActor.assumeIsolated`, which stops the process if that promise is broken.
    public init(_ base: any AsyncTaskExecutor) {
        executor = base
    }

    /// The main actor as a main executor: `MainActorExecutor.shared`, the default of
    /// `TaskBackend.mainExecutor`.
    public static let mainActor = MainExecutor(MainActorExecutor.shared)

    /// Runs `job` once, on the main actor, after the jobs submitted before it (C9.8).
    public func execute(_ job: @escaping @Sendable () -> Void) {
        executor.execute(job)
    }

    /// `true` inside one of this executor's jobs (C9.7).
    public var isCurrent: Bool { executor.isCurrent }

    /// `body` as a closure for a job of this executor: it calls `body` isolated to the main
    /// actor, which holds inside this executor's jobs (C9.8, C9.10).
    @usableFromInline
    func isolating<Input: Sendable, Output: Sendable>(
        _ body: @escaping @MainActor @Sendable (Input) throws -> Output
    ) -> @Sendable (Input) throws -> Output {
        { input in try MainActor.assumeIsolated { try body(input) } }
    }
}
