import Synchronization

extension TaskBackend {
    /// Default `runAsync`: a Swift task whose jobs run on the default executor, started through a
    /// source and a `StartGate`, so that cancellation crosses the bridge both ways (C9.6):
    ///
    /// - `token` cancelled before the body starts: the task completes cancelled at once and the
    ///   body never runs (C4.3);
    /// - `token` cancelled while the body runs: the Swift task is cancelled, so
    ///   `Task.isCancelled`, `Task.checkCancellation()` and `Task.sleep` inside the body see it;
    /// - the body throwing `CancellationError` (however caused) completes the task cancelled.
    @_disfavoredOverload
    @discardableResult
    public func runAsync<T: Sendable>(
        token: CancellationToken,
        _ body: @escaping @Sendable () async throws -> T
    ) -> any AsyncTask<T> {
        runAsync(token: token, preferring: JobExecutor(defaultExecutor), body)
    }

    /// The bridge behind every `runAsync`, for a backend that has a `TaskExecutor` of its own:
    /// `body` as a Swift task preferring `executor`, with cancellation crossing both ways as
    /// `runAsync(token:_:)` describes (C9.6, C4.3).
    @discardableResult
    public func runAsync<T: Sendable>(
        token: CancellationToken,
        preferring executor: any TaskExecutor,
        _ body: @escaping @Sendable () async throws -> T
    ) -> any AsyncTask<T> {
        let source = sourceWithoutOrigin(of: T.self)
        let gate = StartGate.make(for: source, token: token)
        if token.isCancellationRequested {
            source.tryCancel()
            return source.task
        }
        let swiftTask = Task.detached(executorPreference: executor) {
            // The Swift task keeps its executor alive for as long as it may enqueue jobs on it.
            defer { withExtendedLifetime(executor) {} }
            guard gate.start(source, token: token) else { return }
            source.tryComplete(await Completion.capturing(body))
        }
        guard token.canBeCancelled else { return source.task }
        // Once the body runs, the token's cancellation reaches it as Swift task cancellation.
        let registration = token.register { swiftTask.cancel() }
        source.task.whenComplete(on: inlineExecutor) { _ in registration.dispose() }
        return source.task
    }

    /// `runAsync(token:_:)` with no token (C9.6).
    @inlinable
    @discardableResult
    public func runAsync<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> any AsyncTask<T> {
        runAsync(token: .none, body)
    }

    /// `runAsync` spelled `run`: `backend.run { try await fetch() }` (C9.6). A closure containing
    /// `await` picks this overload; one without picks the synchronous `run`, in async code too.
    /// Disfavored, like the synchronous value forms, so that it never wins over them.
    @inlinable @_disfavoredOverload
    @discardableResult
    public func run<T: Sendable>(
        token: CancellationToken = .none,
        _ body: @escaping @Sendable () async throws -> T
    ) -> any AsyncTask<T> {
        runAsync(token: token, body)
    }
}

extension Completion {
    /// Runs an async `body` and captures its outcome: a returned value is `.success`, a thrown
    /// error is what `init(thrown:)` says.
    public static func capturing(_ body: () async throws -> Success) async -> Completion<Success> {
        do {
            return .success(try await body())
        } catch {
            return Completion(thrown: error)
        }
    }
}

/// Any `AsyncTaskExecutor` as a Swift `TaskExecutor`: each job of a Swift task that prefers it runs as one
/// job of the wrapped executor, on whatever thread that executor picks. Package-wide: the
/// conformance harness hands it to `runAsync(token:preferring:)` too.
package final class JobExecutor: TaskExecutor {
    private let base: any AsyncTaskExecutor

    package init(_ base: any AsyncTaskExecutor) {
        self.base = base
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let once = OnceJob(UnownedJob(job), on: self)
        base.execute { once.run() }
    }
}

/// One Swift job, run at most once however often the wrapped executor runs the closure that
/// carries it. An executor that runs a job twice breaks C7.3, which a checker must be able to
/// report; running a Swift task's job twice would instead be undefined behaviour in the
/// concurrency runtime, which took the whole test process down (a planted bug of the reference
/// backend, `defaultRunsJobTwice`, crashed the mutant tests with "pthread_mutex_lock failed with
/// error 22" through the conformance harness's `runAsync` steps). The closure captures this one
/// reference, as it captured the job and the executor before: no allocation more per job.
private final class OnceJob: Sendable {
    private let job: UnownedJob
    private let executor: JobExecutor
    private let ran = Atomic<Bool>(false)

    init(_ job: UnownedJob, on executor: JobExecutor) {
        self.job = job
        self.executor = executor
    }

    func run() {
        guard !ran.exchange(true, ordering: .acquiringAndReleasing) else { return }
        job.runSynchronously(on: executor.asUnownedTaskExecutor())
    }
}
