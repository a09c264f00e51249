internal import ScheduleKit

/// A task made with its body but not started (FATask's `start` / `startWithDispatchQueue:`,
/// seed 002's kernels): `backend.prepare { token in ... }`, then `start(on:)` once (C9.3).
///
/// - `task` exists from the start and is `pending` until the body starts: continuations may be
///   registered on it before `start`, and run once it completes (C2.1).
/// - The body runs on the executor named at `start`, or the one named at `prepare` (default: the
///   backend's default executor), with a token that is cancelled by `cancel()` or by the token
///   given to `prepare`.
/// - `start` starts the body once: a second `start` throws `StartError.alreadyStarted` and
///   `tryStart` returns `false`; neither traps, and neither starts the body again.
/// - `cancel()` before `start` completes `task` cancelled at once and releases the body, which
///   never runs; a later `start` then runs nothing. After `start`, `cancel()` is a request the
///   body observes through its token (C4.3).
///
/// Keep the prepared task to start it: `task` alone cannot; a prepared task dropped before start
/// completes its task cancelled. Safe to use from any thread.
public final class PreparedTask<Success: Sendable>: Sendable {
    /// The body: runs once, on the executor chosen at start, with the prepared task's token.
    public typealias Body = @Sendable (CancellationToken) throws -> Success

    /// What `start` runs: a body returning the value (`prepare`), or one returning a task whose
    /// outcome the prepared task takes (`prepareTask`, C2.6).
    enum Work {
        case value(Body)
        case task(@Sendable (CancellationToken) throws -> any AsyncTask<Success>)
    }

    private enum State {
        case prepared(Work)
        case cancelledBeforeStart
        case started
    }

    /// The backend that made the task.
    public let backend: any TaskBackend
    private let source: any CompletionSource<Success>
    private let cancellation: any CancellationSource
    private let gate: StartGate?
    private let executor: any AsyncTaskExecutor
    private let state: Locked<State>
    #if PlantedBugs
    /// The planted bug the backend carries, taken once, when the task is prepared.
    private let plantedBugs: PlantedBugSwitch
    #endif

    init(backend: any TaskBackend, executor: any AsyncTaskExecutor, token: CancellationToken, work: Work) {
        self.backend = backend
        self.executor = executor
        source = backend.sourceWithoutOrigin(of: Success.self)
        cancellation = backend.makeCancellationSource(linkedTo: [token])
        gate = StartGate.make(for: source, token: cancellation.token)
        state = Locked(.prepared(work))
        #if PlantedBugs
        plantedBugs = .carried(by: backend)
        #endif
        // Weak: the source's handlers must not keep this object alive (C8.2). The registration
        // lives as long as the source, which only this object holds.
        _ = cancellation.register { [weak self] in self?.releaseBodyIfPending() }
    }

    /// Dropped before start, nothing could ever start the body: the task completes cancelled,
    /// so that nothing waits on it forever (C9.3).
    deinit {
        let neverStarted = state.withLock { state -> Bool in
            if case .started = state { return false }
            return true
        }
        if neverStarted { source.tryCancel() }
    }

    /// The task: pending until the body starts, then completed with what it returns or throws.
    public var task: any AsyncTask<Success> { source.task }

    /// The token the body receives: cancelled by `cancel()` or by the token given to `prepare`.
    public var token: CancellationToken { cancellation.token }

    /// `true` once `start` or `tryStart` has succeeded.
    public var isStarted: Bool {
        state.withLock { state in
            if case .started = state { return true }
            return false
        }
    }

    /// Starts the body on `executor` (default: the executor named at `prepare`), unless it was
    /// started before: then returns `false` and changes nothing. Returns `true` on the first call,
    /// also after `cancel()`, when the task is already cancelled and nothing runs.
    @discardableResult
    public func tryStart(on executor: (any AsyncTaskExecutor)? = nil) -> Bool {
        let claimed = claim()
        if let work = claimed.work {
            let source = self.source
            let gate = self.gate
            let token = cancellation.token
            let inline = backend.inlineExecutor
            (executor ?? self.executor).execute {
                switch work {
                case .value(let body):
                    gate.runBody(on: source, token: token) { try body(token) }
                case .task(let body):
                    guard gate.start(source, token: token) else { return }
                    source.adoptOutcome(of: { try body(token) }, inline: inline)
                }
            }
        }
        return claimed.started
    }

    /// Marks the task started: whether this call did, and the work to run (`nil` if `cancel()`
    /// came first).
    @inline(__always)
    private func claim() -> (started: Bool, work: Work?) {
        #if PlantedBugs
        if plantedBugs.isOn(TaskAPIPlantedBug.preparedStartChecksApart) { return claimApart() }
        #endif
        return state.withLock { state in
            switch state {
            case .prepared(let work):
                state = .started
                return (true, work)
            case .cancelledBeforeStart:
                state = .started
                return (true, nil)
            case .started:
                return (false, nil)
            }
        }
    }

    #if PlantedBugs
    /// The planted bug `preparedStartChecksApart`: `claim` in two critical sections, the check
    /// and the mark.
    private func claimApart() -> (started: Bool, work: Work?) {
        let found: (started: Bool, work: Work?) = state.withLock { state in
            switch state {
            case .prepared(let work): return (true, work)
            case .cancelledBeforeStart: return (true, nil)
            case .started: return (false, nil)
            }
        }
        if found.started { state.withLock { $0 = .started } }
        return found
    }
    #endif

    /// Starts the body like `tryStart(on:)`, or throws `StartError.alreadyStarted` if it was
    /// started before (C9.3: an error value, never a trap).
    public func start(on executor: (any AsyncTaskExecutor)? = nil) throws(StartError) {
        guard tryStart(on: executor) else { throw StartError.alreadyStarted }
    }

    /// Requests cancellation: before `start`, the task completes cancelled at once and the body
    /// never runs; after, the body sees it through its token. Idempotent.
    public func cancel() {
        cancellation.cancel()
    }

    private func releaseBodyIfPending() {
        state.withLock { state in
            if case .prepared = state { state = .cancelledBeforeStart }
        }
    }
}

/// The error of starting a `PreparedTask` twice (C9.3).
public enum StartError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `start` was called on a prepared task that had already been started; nothing changed.
    case alreadyStarted

    public var description: String {
        "StartError.alreadyStarted: a prepared task starts once; this call changed nothing (C9.3)"
    }
}

extension TaskBackend {
    /// A task with `body`, not started: see `PreparedTask` (C9.3). `executor` (default: the
    /// default executor) is where `start()` runs the body when `start(on:)` names none; `token`
    /// cancels it like `cancel()`. The body returns the value; one returning a task is
    /// `prepareTask` (C2.6).
    public func prepare<T: Sendable>(
        on executor: (any AsyncTaskExecutor)? = nil,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (CancellationToken) throws -> T
    ) -> PreparedTask<T> {
        PreparedTask(backend: self, executor: executor ?? defaultExecutor, token: token, work: .value(body))
    }

    /// `prepare` for a body that takes no token.
    public func prepare<T: Sendable>(
        on executor: (any AsyncTaskExecutor)? = nil,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable () throws -> T
    ) -> PreparedTask<T> {
        prepare(on: executor, token: token) { (_: CancellationToken) in try body() }
    }

    /// A prepared task whose body returns a task: once started, the prepared task takes that
    /// task's outcome (C9.3, C2.6).
    public func prepareTask<T: Sendable>(
        on executor: (any AsyncTaskExecutor)? = nil,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (CancellationToken) throws -> any AsyncTask<T>
    ) -> PreparedTask<T> {
        PreparedTask(backend: self, executor: executor ?? defaultExecutor, token: token, work: .task(body))
    }

    /// `prepareTask` for a body that takes no token.
    public func prepareTask<T: Sendable>(
        on executor: (any AsyncTaskExecutor)? = nil,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable () throws -> any AsyncTask<T>
    ) -> PreparedTask<T> {
        prepareTask(on: executor, token: token) { (_: CancellationToken) in try body() }
    }

    @available(*, unavailable, message: "the body returns a task: use prepareTask, which unwraps it (C2.6)")
    public func prepare<T: Sendable>(
        on executor: (any AsyncTaskExecutor)? = nil,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable (CancellationToken) throws -> any AsyncTask<T>
    ) -> PreparedTask<T> {
        prepareTask(on: executor, token: token, body)
    }

    @available(*, unavailable, message: "the body returns a task: use prepareTask, which unwraps it (C2.6)")
    public func prepare<T: Sendable>(
        on executor: (any AsyncTaskExecutor)? = nil,
        token: CancellationToken = .none,
        _ body: @escaping @Sendable () throws -> any AsyncTask<T>
    ) -> PreparedTask<T> {
        prepareTask(on: executor, token: token, body)
    }
}
