/// A backend: one value that hands out everything the contract needs, all built on one
/// scheduling technology. Tasks made by a backend only ever mix with tasks of the same backend
/// through the protocols, so combinators accept any `AsyncTask`, whoever made it.
public protocol TaskBackend: Sendable {
    /// A short name for reports and test ids ("gcd", "threads", "actors", ...).
    var name: String { get }

    /// The default executor: parallel, used when no executor is named (C7.2).
    /// Bodies on it may block in `wait()`, nested at least 16 deep, without deadlock (C6.4).
    var defaultExecutor: any AsyncTaskExecutor { get }

    /// The inline executor: runs a job on the thread that hands it over, before that call
    /// returns, except that nested hand-offs are queued and run in a loop, so that chains of any
    /// length cannot overflow the stack (C2.7).
    var inlineExecutor: any AsyncTaskExecutor { get }

    /// A new serial executor: FIFO, one job at a time (C7.2). The stand-in for a main queue.
    func makeSerialExecutor(label: String) -> any AsyncTaskExecutor

    /// The main executor: a serial executor whose jobs run on the program's main thread, in
    /// order, with `MainActor.assumeIsolated` working inside them (C9.8). The program's main
    /// thread must serve it (each backend documents how). Continuations registered on it take
    /// `@MainActor` bodies (C9.10). Default: `MainExecutor.mainActor`.
    var mainExecutor: MainExecutor { get }

    /// Serves `mainExecutor` on the calling thread, the program's main thread, until `task` has
    /// completed (C9.8): runs its jobs in order, waiting without spinning while there are none,
    /// then returns `true`. Returns `false` at once, running nothing, when called on another
    /// thread or from inside a main-executor job. A command-line program's top-level code:
    ///
    ///     let done = work.continueWith(on: backend.mainExecutor) { outcome in show(outcome) }
    ///     backend.runMainLoop(until: done)
    ///
    /// Default: serves `MainExecutor.mainActor`'s jobs (returns `false` at once for a backend
    /// whose `mainExecutor` is another).
    @discardableResult
    func runMainLoop<T>(until task: any AsyncTask<T>) -> Bool

    /// Serves `mainExecutor` on the calling thread, the program's main thread, for the rest of
    /// the program (C9.8): a command-line program's last line, where it would call
    /// `dispatchMain()`. Never returns when called on the main thread; returns `false` at once,
    /// running nothing, on another thread or from inside a main-executor job. The program ends
    /// with `exit` from one of its jobs.
    ///
    /// Default: serves `MainExecutor.mainActor`'s jobs (returns `false` at once for a backend
    /// whose `mainExecutor` is another).
    @discardableResult
    func runMainLoop() -> Bool

    /// A new pending source and its task (C1.1). Disfavored: in debug builds a call picks the
    /// extension `makeSource(of:fileID:line:)`, which records where the source was made
    /// (`TaskError.abandoned`, C8.3) and calls this.
    @_disfavoredOverload
    func makeSource<T: Sendable>(of type: T.Type) -> any CompletionSource<T>

    /// A new cancellation source, not cancelled (C4.1).
    func makeCancellationSource() -> any CancellationSource

    /// Runs `job` once, no earlier than `delay` from now, on a thread of the backend's choosing,
    /// unless the returned handle is disposed first; disposing releases `job` (C5.4, C4.6).
    func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable

    /// Starts `body` at once on `executor`, and returns its task (Swift-Async's `Async<T> {}`).
    /// The task completes with what `body` returns or throws (C3.1, C3.2). If `token` is cancelled
    /// before `body` starts, `body` never runs and the task completes cancelled (C4.3).
    @discardableResult
    func run<T: Sendable>(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ body: @escaping @Sendable (CancellationToken) throws -> T
    ) -> any AsyncTask<T>

    /// An already-completed task (C1.4).
    func completed<T: Sendable>(_ completion: Completion<T>) -> any AsyncTask<T>

    /// Runs an async `body` as a Swift task on the backend's threads and returns its task; token
    /// and Swift task cancellation are bridged both ways (C9.6). Default in TaskAPI
    /// (TaskBackend+Async.swift); a backend may replace it.
    @discardableResult
    func runAsync<T: Sendable>(
        token: CancellationToken,
        _ body: @escaping @Sendable () async throws -> T
    ) -> any AsyncTask<T>

    // Combinators with defaults in TaskAPI (TaskBackend+WhenAll.swift, TaskBackend+Race.swift,
    // AsyncTask+Timeout.swift), listed here so that a backend can replace them.

    /// Values in input order; fails fast; `[]` at once for no input (C5.1).
    func whenAll<T: Sendable>(_ tasks: [any AsyncTask<T>]) -> any AsyncTask<[T]>

    /// Every outcome in input order, once all are in (C5.2).
    func whenAllSettled<T: Sendable>(_ tasks: [any AsyncTask<T>]) -> any AsyncTask<[Completion<T>]>

    /// The first outcome of any kind; `TaskError.emptyInput` for no input (C5.3).
    func race<T: Sendable>(_ tasks: [any AsyncTask<T>]) -> any AsyncTask<T>

    /// The first success, else an `AggregateError`; `TaskError.emptyInput` for no input (C5.3).
    func any<T: Sendable>(_ tasks: [any AsyncTask<T>]) -> any AsyncTask<T>

    /// Succeeds no earlier than `delay`; cancelled at once if `token` is (C5.4).
    func delay(_ delay: Duration, token: CancellationToken) -> any AsyncTask<Void>

    /// Whether every thread that runs this backend's work synchronizes through TaskAPI's
    /// primitives (`Locked`, `ConditionLock`, `ScheduledAtomic`, `SchedulePoint.reach()`) and gets
    /// its work through `SchedulePoint.fork`/`adopt`: then a checker's controlled run schedules
    /// its executors, pools, timers and waits themselves, one seat at a time (`SchedulePoint`).
    /// Default `false`: a checker then runs jobs on the backend's executors whole, one at a time.
    var isScheduleInstrumented: Bool { get }

    /// The contract version this backend was written against (`ContractVersion`, docs/CONTRACT.md
    /// "Versions"): a checker's report names the failing rules that came in later versions, which
    /// an upgrade of TaskAPI brought, apart from the backend's own bugs. Default `nil`: not declared
    /// (the report then names the version of every failing rule newer than 1.0).
    var targetContractVersion: ContractVersion? { get }
}

extension TaskBackend {
    /// Default: not instrumented (see the requirement).
    public var isScheduleInstrumented: Bool { false }

    /// Default: not declared (see the requirement).
    public var targetContractVersion: ContractVersion? { nil }

    /// Default `run`: a source, started and completed by a job on `executor`. The defaults of
    /// requirements are disfavored: a call picks the requirement (so the backend's implementation)
    /// without weighing the default as a second candidate (C9.1).
    @_disfavoredOverload
    @discardableResult
    public func run<T: Sendable>(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ body: @escaping @Sendable (CancellationToken) throws -> T
    ) -> any AsyncTask<T> {
        let source = sourceWithoutOrigin(of: T.self)
        let gate = StartGate.make(for: source, token: token)
        executor.execute {
            gate.runBody(on: source, token: token) { try body(token) }
        }
        return source.task
    }

    /// Default `completed`: a source completed at once.
    @_disfavoredOverload
    public func completed<T: Sendable>(_ completion: Completion<T>) -> any AsyncTask<T> {
        let source = sourceWithoutOrigin(of: T.self)
        source.tryComplete(completion)
        return source.task
    }

    /// A new pending source and its task (C1.1): the `makeSource(of:)` requirement, and, in a
    /// debug build, the source keeps where it was made (this call's file and line), which
    /// `TaskError.abandoned` names if it is released pending (C8.3). A source of a backend whose
    /// sources are not `SourceOriginRecording` keeps nothing; nor does any source in a release
    /// build, which takes the same parameters (so the API is the same in both) and records
    /// nothing, at the cost of the call alone.
    public func makeSource<T: Sendable>(
        of type: T.Type,
        fileID: StaticString = #fileID,
        line: UInt = #line
    ) -> any CompletionSource<T> {
        let source = sourceWithoutOrigin(of: type)
        #if DEBUG
        (source as? any SourceOriginRecording)?.recordOrigin(SourceOrigin(fileID: fileID, line: line))
        #endif
        return source
    }

    /// The `makeSource(of:)` requirement itself, recording no origin: for the sources TaskAPI
    /// makes on a caller's behalf (derived tasks, combinators), which no caller holds, and for a
    /// backend that wraps another and forwards its `makeSource(of:)` requirement to it.
    ///
    /// A call `base.makeSource(of: type)` picks the recording overload
    /// (`makeSource(of:fileID:line:)`), so a wrapper that forwarded so would name its own
    /// forwarding line as the origin of every source that TaskAPI or a checker makes through the
    /// requirement, where no origin is due (C8.3); a user's call still names the user's line,
    /// recorded last. Forward with this instead:
    ///
    /// ```swift
    /// func makeSource<T: Sendable>(of type: T.Type) -> any CompletionSource<T> {
    ///     base.sourceWithoutOrigin(of: type)
    /// }
    /// ```
    ///
    /// The requirement is named by its full name and applied at once: a call by its base name
    /// would pick the recording overload, and a reference stored first (a `let` of function
    /// type) made a closure context on the heap at every call (48 bytes, one malloc per
    /// `makeSource`, counted by bench's memory scenario with `mtrace`); applied at once, the
    /// compiler calls the witness directly.
    @inlinable
    public func sourceWithoutOrigin<T: Sendable>(of type: T.Type) -> any CompletionSource<T> {
        makeSource(of:)(type)
    }

    /// A new pending source, its type inferred from the context; in debug builds it keeps this
    /// call's file and line (C8.3).
    public func makeSource<T: Sendable>(fileID: StaticString = #fileID, line: UInt = #line) -> any CompletionSource<T> {
        makeSource(of: T.self, fileID: fileID, line: line)
    }

    /// A task made by hand: `body` gets the source at once, on the calling thread, and completes
    /// it whenever it likes (HNTask's `newTask { resolve, reject in }`).
    public func makeTask<T: Sendable>(
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: (any CompletionSource<T>) -> Void
    ) -> any AsyncTask<T> {
        let source: any CompletionSource<T> = makeSource(fileID: fileID, line: line)
        body(source)
        return source.task
    }

    /// A task that already succeeded with `value` (C1.4).
    @inlinable
    public func succeeded<T: Sendable>(_ value: T) -> any AsyncTask<T> { completed(.success(value)) }

    /// A task that already failed with `error` (C1.4), its type taken from the context:
    /// `let f: any AsyncTask<Int> = backend.failed(error)` (C9.1).
    @inlinable
    public func failed<T: Sendable>(_ error: any Error) -> any AsyncTask<T> {
        completed(.failure(error))
    }

    /// A task that already failed with `error` (C1.4), its type named: `failed(error, as: Int.self)`.
    @inlinable
    public func failed<T: Sendable>(_ error: any Error, as type: T.Type) -> any AsyncTask<T> {
        completed(.failure(error))
    }

    /// A task that is already cancelled (C1.4), its type taken from the context (C9.1).
    @inlinable
    public func cancelled<T: Sendable>() -> any AsyncTask<T> { completed(.cancelled) }

    /// A task that is already cancelled (C1.4), its type named: `cancelled(as: Int.self)`.
    @inlinable
    public func cancelled<T: Sendable>(as type: T.Type) -> any AsyncTask<T> { completed(.cancelled) }

    /// A cancellation source that is cancelled as soon as any of `tokens` is (C4.6).
    ///
    /// A parent's `cancel()` returns only once this source's handlers ran, also when another
    /// call is running them (C4.1). The parents hold their handlers for it only weakly, and it
    /// disposes them when it is freed: a parent that lives on keeps nothing of it (C8.2).
    public func makeCancellationSource(linkedTo tokens: [CancellationToken]) -> any CancellationSource {
        LinkedCancellationSource.linking(makeCancellationSource(), to: tokens)
    }
}
