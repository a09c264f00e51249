/// A public entry point of TaskAPI's contract types (`AsyncTask`, `CompletionSource`,
/// `TaskBackend`, `CancellationSource`, `CancellationToken`, `AsyncTaskExecutor`, `MainExecutor`,
/// `TaskFactory`, `PreparedTask`, `WorkGroup`): every protocol requirement and every public
/// member or extension method, by its Swift name. Overloads that share a name are told apart by
/// a tag in brackets: `executor?` (an optional executor), `task` (a body returning a task),
/// `no token` (a body that takes no token), `async`, `pack` (variadic generics), `unavailable`,
/// `main` (on a `MainExecutor`, a `@MainActor` body), `actor` (on a `PinnedActor`, an isolated
/// body). The forms that leave the executor or the token out are names of their own
/// (`map(on:_:)`, `map(token:_:)`), as each is one candidate (C9.1).
///
/// The one list of them: the generator's operations name the entry points each step calls
/// (`OperationPayload.entryPoints`), the report counts the programs that called each and the
/// checks that judged it (`ConformanceReport.entryPointTable`), and `EntryPointTests` derives the
/// same names from TaskAPI's sources, so that an entry point added to TaskAPI and missing here
/// fails a test.
public enum EntryPoint: String, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    // MARK: AsyncTask
    case taskBackend = "AsyncTask.backend"
    case status = "AsyncTask.status"
    case completion = "AsyncTask.completion"
    case isCompleted = "AsyncTask.isCompleted"
    case whenCompleteOn = "AsyncTask.whenComplete(on:_:)"
    case whenCompleteActor = "AsyncTask.whenComplete(on:_:) [actor]"
    case whenCompleteMain = "AsyncTask.whenComplete(on:_:) [main]"
    case whenComplete = "AsyncTask.whenComplete(_:)"
    case wait = "AsyncTask.wait()"
    case waitTimeout = "AsyncTask.wait(timeout:)"
    case get = "AsyncTask.get()"
    case value = "AsyncTask.value"
    case continueWith = "AsyncTask.continueWith(on:token:_:)"
    case continueWithOn = "AsyncTask.continueWith(on:_:)"
    case continueWithToken = "AsyncTask.continueWith(token:_:)"
    case continueWithActor = "AsyncTask.continueWith(on:token:_:) [actor]"
    case continueWithMain = "AsyncTask.continueWith(on:token:_:) [main]"
    case continueWithUnavailable = "AsyncTask.continueWith(on:token:_:) [executor?, task, unavailable]"
    case continueWithUnavailableMain = "AsyncTask.continueWith(on:token:_:) [task, unavailable, main]"
    case continueWithUnavailableActor = "AsyncTask.continueWith(on:token:_:) [task, unavailable, actor]"
    case continueWithTask = "AsyncTask.continueWithTask(on:token:_:)"
    case continueWithTaskOn = "AsyncTask.continueWithTask(on:_:)"
    case continueWithTaskToken = "AsyncTask.continueWithTask(token:_:)"
    case continueWithTaskActor = "AsyncTask.continueWithTask(on:token:_:) [actor]"
    case continueWithTaskMain = "AsyncTask.continueWithTask(on:token:_:) [main]"
    case map = "AsyncTask.map(on:token:_:)"
    case mapOn = "AsyncTask.map(on:_:)"
    case mapKeepingType = "AsyncTask.mapKeepingType(on:token:_:)"
    case mapToken = "AsyncTask.map(token:_:)"
    case mapActor = "AsyncTask.map(on:token:_:) [actor]"
    case mapMain = "AsyncTask.map(on:token:_:) [main]"
    case mapUnavailable = "AsyncTask.map(on:token:_:) [executor?, task, unavailable]"
    case mapUnavailableMain = "AsyncTask.map(on:token:_:) [task, unavailable, main]"
    case mapUnavailableActor = "AsyncTask.map(on:token:_:) [task, unavailable, actor]"
    case flatMap = "AsyncTask.flatMap(on:token:_:)"
    case flatMapOn = "AsyncTask.flatMap(on:_:)"
    case flatMapToken = "AsyncTask.flatMap(token:_:)"
    case flatMapActor = "AsyncTask.flatMap(on:token:_:) [actor]"
    case flatMapMain = "AsyncTask.flatMap(on:token:_:) [main]"
    case then = "AsyncTask.then(on:token:_:) [executor?]"
    case thenActor = "AsyncTask.then(on:token:_:) [actor]"
    case thenMain = "AsyncTask.then(on:token:_:) [main]"
    case thenUnavailable = "AsyncTask.then(on:token:_:) [executor?, task, unavailable]"
    case thenUnavailableMain = "AsyncTask.then(on:token:_:) [task, unavailable, main]"
    case thenUnavailableActor = "AsyncTask.then(on:token:_:) [task, unavailable, actor]"
    case recover = "AsyncTask.recover(on:token:_:)"
    case recoverOn = "AsyncTask.recover(on:_:)"
    case recoverToken = "AsyncTask.recover(token:_:)"
    case recoverActor = "AsyncTask.recover(on:token:_:) [actor]"
    case recoverMain = "AsyncTask.recover(on:token:_:) [main]"
    case recoverUnavailable = "AsyncTask.recover(on:token:_:) [executor?, task, unavailable]"
    case recoverUnavailableMain = "AsyncTask.recover(on:token:_:) [task, unavailable, main]"
    case recoverUnavailableActor = "AsyncTask.recover(on:token:_:) [task, unavailable, actor]"
    case recoverTask = "AsyncTask.recoverTask(on:token:_:)"
    case recoverTaskOn = "AsyncTask.recoverTask(on:_:)"
    case recoverTaskToken = "AsyncTask.recoverTask(token:_:)"
    case recoverTaskActor = "AsyncTask.recoverTask(on:token:_:) [actor]"
    case recoverTaskMain = "AsyncTask.recoverTask(on:token:_:) [main]"
    case `catch` = "AsyncTask.catch(on:token:_:) [executor?]"
    case catchActor = "AsyncTask.catch(on:token:_:) [actor]"
    case catchMain = "AsyncTask.catch(on:token:_:) [main]"
    case catchUnavailable = "AsyncTask.catch(on:token:_:) [executor?, task, unavailable]"
    case catchUnavailableMain = "AsyncTask.catch(on:token:_:) [task, unavailable, main]"
    case catchUnavailableActor = "AsyncTask.catch(on:token:_:) [task, unavailable, actor]"
    case finally = "AsyncTask.finally(on:_:)"
    case finallyDefault = "AsyncTask.finally(_:)"
    case finallyActor = "AsyncTask.finally(on:_:) [actor]"
    case finallyMain = "AsyncTask.finally(on:_:) [main]"
    case finallyTask = "AsyncTask.finallyTask(on:_:)"
    case finallyTaskDefault = "AsyncTask.finallyTask(_:)"
    case finallyTaskActor = "AsyncTask.finallyTask(on:_:) [actor]"
    case finallyTaskMain = "AsyncTask.finallyTask(on:_:) [main]"
    case asVoid = "AsyncTask.asVoid()"
    case timeout = "AsyncTask.timeout(after:)"

    // MARK: CompletionSource
    case sourceTask = "CompletionSource.task"
    case tryComplete = "CompletionSource.tryComplete(_:)"
    case tryStart = "CompletionSource.tryStart()"
    case trySucceed = "CompletionSource.trySucceed(_:)"
    case trySucceedVoid = "CompletionSource.trySucceed()"
    case tryFail = "CompletionSource.tryFail(_:)"
    case tryCancel = "CompletionSource.tryCancel()"
    case complete = "CompletionSource.complete(_:)"
    case succeed = "CompletionSource.succeed(_:)"
    case succeedVoid = "CompletionSource.succeed()"
    case fail = "CompletionSource.fail(_:)"
    case cancelSource = "CompletionSource.cancel()"

    // MARK: TaskBackend
    case name = "TaskBackend.name"
    case defaultExecutor = "TaskBackend.defaultExecutor"
    case inlineExecutor = "TaskBackend.inlineExecutor"
    case isScheduleInstrumented = "TaskBackend.isScheduleInstrumented"
    case targetContractVersion = "TaskBackend.targetContractVersion"
    case makeSerialExecutor = "TaskBackend.makeSerialExecutor(label:)"
    case makeActorExecutor = "TaskBackend.makeActorExecutor(label:)"
    case mainExecutor = "TaskBackend.mainExecutor"
    case runMainLoopUntil = "TaskBackend.runMainLoop(until:)"
    case runMainLoop = "TaskBackend.runMainLoop()"
    case makeSourceOf = "TaskBackend.makeSource(of:)"
    case makeSourceOfOrigin = "TaskBackend.makeSource(of:fileID:line:)"
    case sourceWithoutOrigin = "TaskBackend.sourceWithoutOrigin(of:)"
    case makeSourceInferred = "TaskBackend.makeSource(fileID:line:)"
    case makeTask = "TaskBackend.makeTask(fileID:line:_:)"
    case makeCancellationSource = "TaskBackend.makeCancellationSource()"
    case makeCancellationSourceLinked = "TaskBackend.makeCancellationSource(linkedTo:)"
    case schedule = "TaskBackend.schedule(after:_:)"
    case run = "TaskBackend.run(on:token:_:)"
    case runOn = "TaskBackend.run(on:_:)"
    case runToken = "TaskBackend.run(token:_:)"
    case runNoToken = "TaskBackend.run(on:token:_:) [no token]"
    case runOnNoToken = "TaskBackend.run(on:_:) [no token]"
    case runTokenNoToken = "TaskBackend.run(token:_:) [no token]"
    case runMain = "TaskBackend.run(on:token:_:) [main]"
    case runMainNoToken = "TaskBackend.run(on:token:_:) [no token, main]"
    case runUnavailable = "TaskBackend.run(on:token:_:) [executor?, task, unavailable]"
    case runUnavailableNoToken = "TaskBackend.run(on:token:_:) [executor?, task, no token, unavailable]"
    case runUnavailableMain = "TaskBackend.run(on:token:_:) [task, unavailable, main]"
    case runUnavailableMainNoToken = "TaskBackend.run(on:token:_:) [task, no token, unavailable, main]"
    case runTask = "TaskBackend.runTask(on:token:_:) [executor?]"
    case runTaskNoToken = "TaskBackend.runTask(on:token:_:) [executor?, no token]"
    case runTaskMain = "TaskBackend.runTask(on:token:_:) [main]"
    case runTaskMainNoToken = "TaskBackend.runTask(on:token:_:) [no token, main]"
    case runAsyncSpelledRun = "TaskBackend.run(token:_:) [no token, async]"
    case runAsync = "TaskBackend.runAsync(token:_:)"
    case runAsyncNoToken = "TaskBackend.runAsync(_:)"
    case runAsyncPreferring = "TaskBackend.runAsync(token:preferring:_:)"
    case completed = "TaskBackend.completed(_:)"
    case succeeded = "TaskBackend.succeeded(_:)"
    case failed = "TaskBackend.failed(_:)"
    case failedAs = "TaskBackend.failed(_:as:)"
    case cancelled = "TaskBackend.cancelled()"
    case cancelledAs = "TaskBackend.cancelled(as:)"
    case whenAll = "TaskBackend.whenAll(_:)"
    case whenAllPack = "TaskBackend.whenAll(_:) [pack]"
    case whenAllMixedArray = "TaskBackend.whenAll(_:) [unavailable]"
    case whenAllVoids = "TaskBackend.whenAll(voids:)"
    case whenAllSettled = "TaskBackend.whenAllSettled(_:)"
    case race = "TaskBackend.race(_:)"
    case any = "TaskBackend.any(_:)"
    case delay = "TaskBackend.delay(_:token:)"
    case delayNoToken = "TaskBackend.delay(_:)"
    case retry = "TaskBackend.retry(attempts:backoff:on:token:while:_:)"
    case retryNoToken = "TaskBackend.retry(attempts:backoff:on:token:while:_:) [no token]"
    case retryUnavailable = "TaskBackend.retry(attempts:backoff:on:token:while:_:) [task, unavailable]"
    case retryUnavailableNoToken = "TaskBackend.retry(attempts:backoff:on:token:while:_:) [task, no token, unavailable]"
    case retryTask = "TaskBackend.retryTask(attempts:backoff:on:token:while:_:)"
    case retryTaskNoToken = "TaskBackend.retryTask(attempts:backoff:on:token:while:_:) [no token]"
    case prepare = "TaskBackend.prepare(on:token:_:)"
    case prepareNoToken = "TaskBackend.prepare(on:token:_:) [no token]"
    case prepareUnavailable = "TaskBackend.prepare(on:token:_:) [task, unavailable]"
    case prepareUnavailableNoToken = "TaskBackend.prepare(on:token:_:) [task, no token, unavailable]"
    case prepareTask = "TaskBackend.prepareTask(on:token:_:)"
    case prepareTaskNoToken = "TaskBackend.prepareTask(on:token:_:) [no token]"

    // MARK: CancellationSource, CancellationToken
    case sourceIsCancellationRequested = "CancellationSource.isCancellationRequested"
    case cancel = "CancellationSource.cancel()"
    case cancelAfter = "CancellationSource.cancel(after:)"
    case register = "CancellationSource.register(_:)"
    case token = "CancellationSource.token"
    case tokenInit = "CancellationToken.init(source:)"
    case tokenNone = "CancellationToken.none"
    case tokenCanBeCancelled = "CancellationToken.canBeCancelled"
    case tokenIsCancellationRequested = "CancellationToken.isCancellationRequested"
    case tokenCheckpoint = "CancellationToken.checkpoint()"
    case tokenRegister = "CancellationToken.register(_:)"

    // MARK: AsyncTaskExecutor, MainExecutor
    case execute = "AsyncTaskExecutor.execute(_:)"
    case isCurrent = "AsyncTaskExecutor.isCurrent"
    case mainInit = "MainExecutor.init(_:)"
    case mainActor = "MainExecutor.mainActor"
    case mainExecutorExecutor = "MainExecutor.executor"
    case mainExecute = "MainExecutor.execute(_:)"
    case mainIsCurrent = "MainExecutor.isCurrent"

    // MARK: TaskFactory
    case factoryInit = "TaskFactory.init(backend:executor:token:)"
    case factoryBackend = "TaskFactory.backend"
    case factoryExecutor = "TaskFactory.executor"
    case factoryToken = "TaskFactory.token"
    case factoryWithExecutor = "TaskFactory.with(executor:)"
    case factoryWithToken = "TaskFactory.with(token:)"
    case factoryRun = "TaskFactory.run(_:)"
    case factoryRunNoToken = "TaskFactory.run(_:) [no token]"
    case factoryRunAsync = "TaskFactory.run(_:) [no token, async]"
    case factoryRunUnavailable = "TaskFactory.run(_:) [task, unavailable]"
    case factoryRunUnavailableNoToken = "TaskFactory.run(_:) [task, no token, unavailable]"
    case factoryRunTask = "TaskFactory.runTask(_:)"
    case factoryRunTaskNoToken = "TaskFactory.runTask(_:) [no token]"
    case factoryPrepare = "TaskFactory.prepare(_:)"
    case factoryPrepareNoToken = "TaskFactory.prepare(_:) [no token]"
    case factoryPrepareUnavailable = "TaskFactory.prepare(_:) [task, unavailable]"
    case factoryPrepareUnavailableNoToken = "TaskFactory.prepare(_:) [task, no token, unavailable]"
    case factoryPrepareTask = "TaskFactory.prepareTask(_:)"
    case factoryPrepareTaskNoToken = "TaskFactory.prepareTask(_:) [no token]"
    case factoryRetry = "TaskFactory.retry(attempts:backoff:while:_:)"
    case factoryRetryNoToken = "TaskFactory.retry(attempts:backoff:while:_:) [no token]"
    case factoryRetryUnavailable = "TaskFactory.retry(attempts:backoff:while:_:) [task, unavailable]"
    case factoryRetryUnavailableNoToken = "TaskFactory.retry(attempts:backoff:while:_:) [task, no token, unavailable]"
    case factoryRetryTask = "TaskFactory.retryTask(attempts:backoff:while:_:)"
    case factoryRetryTaskNoToken = "TaskFactory.retryTask(attempts:backoff:while:_:) [no token]"
    case factoryDelay = "TaskFactory.delay(_:)"
    case factoryContinueWith = "TaskFactory.continueWith(_:_:)"
    case factoryContinueWithUnavailable = "TaskFactory.continueWith(_:_:) [task, unavailable]"
    case factoryContinueWithTask = "TaskFactory.continueWithTask(_:_:)"
    case factoryMap = "TaskFactory.map(_:_:)"
    case factoryMapUnavailable = "TaskFactory.map(_:_:) [task, unavailable]"
    case factoryFlatMap = "TaskFactory.flatMap(_:_:)"
    case factoryThen = "TaskFactory.then(_:_:)"
    case factoryThenUnavailable = "TaskFactory.then(_:_:) [task, unavailable]"
    case factoryRecover = "TaskFactory.recover(_:_:)"
    case factoryRecoverUnavailable = "TaskFactory.recover(_:_:) [task, unavailable]"
    case factoryRecoverTask = "TaskFactory.recoverTask(_:_:)"
    case factoryCatch = "TaskFactory.catch(_:_:)"
    case factoryCatchUnavailable = "TaskFactory.catch(_:_:) [task, unavailable]"
    case factoryFinally = "TaskFactory.finally(_:_:)"
    case factoryFinallyTask = "TaskFactory.finallyTask(_:_:)"
    case factoryWhenComplete = "TaskFactory.whenComplete(_:_:)"

    // MARK: PreparedTask
    case preparedBackend = "PreparedTask.backend"
    case preparedTask = "PreparedTask.task"
    case preparedToken = "PreparedTask.token"
    case preparedIsStarted = "PreparedTask.isStarted"
    case preparedTryStart = "PreparedTask.tryStart(on:)"
    case preparedStart = "PreparedTask.start(on:)"
    case preparedCancel = "PreparedTask.cancel()"

    // MARK: WorkGroup
    case groupInit = "WorkGroup.init(backend:)"
    case groupJoin = "WorkGroup.join(_:)"
    case groupIdle = "WorkGroup.idle()"
    case groupPendingCount = "WorkGroup.pendingCount"
    case groupWait = "WorkGroup.wait()"
    case groupWaitTimeout = "WorkGroup.wait(timeout:)"

    public var description: String { rawValue }

    /// A form registered on a `PinnedActor` (C9.10).
    var isPinnedForm: Bool { rawValue.hasSuffix("[actor]") }

    /// What `backend.makeSource(of: T.self)` calls: the overload that takes where the source was
    /// made (and records it in debug builds, C8.3), in every build.
    static var makeSourceOfType: EntryPoint { .makeSourceOfOrigin }

    public static func < (lhs: EntryPoint, rhs: EntryPoint) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Why no generated program calls this entry point, for the few that cannot be generated;
    /// `nil` for every other (the coverage table then counts its programs and checks).
    public var notGenerated: String? {
        switch self {
        case .whenAllMixedArray, .continueWithUnavailable, .mapUnavailable, .thenUnavailable, .recoverUnavailable, .catchUnavailable,
            .runUnavailable, .runUnavailableNoToken, .retryUnavailable, .prepareUnavailable, .prepareUnavailableNoToken,
            .continueWithUnavailableMain, .continueWithUnavailableActor, .mapUnavailableMain, .mapUnavailableActor, .thenUnavailableMain,
            .thenUnavailableActor, .recoverUnavailableMain, .recoverUnavailableActor, .catchUnavailableMain, .catchUnavailableActor,
            .runUnavailableMain, .runUnavailableMainNoToken, .retryUnavailableNoToken, .factoryRunUnavailable,
            .factoryRunUnavailableNoToken, .factoryPrepareUnavailable, .factoryPrepareUnavailableNoToken, .factoryRetryUnavailable,
            .factoryRetryUnavailableNoToken, .factoryContinueWithUnavailable, .factoryMapUnavailable, .factoryThenUnavailable,
            .factoryRecoverUnavailable, .factoryCatchUnavailable:
            return "cannot be called: it is `@available(*, unavailable)`, there only to turn a call that cannot type-check into a "
                + "compile-time message naming the right form (C2.6, C5.1)"
        case .whenCompleteMain, .continueWithMain, .continueWithTaskMain, .mapMain, .flatMapMain, .thenMain, .recoverMain,
            .recoverTaskMain, .catchMain, .finallyMain, .finallyTaskMain, .runMain, .runMainNoToken, .runTaskMain, .runTaskMainNoToken,
            .mainExecute:
            return "needs the program's main thread to serve the main executor (C9.8), which a test process's main thread may not "
                + "(the threads backend's never does): Tests/RuleTests' child processes run every form (C9MainExecutorTests, "
                + "C9IsolatedContinuationTests, Examples/MainExecutor); the rule suite checks what holds off the main thread (C9.10)"
        case .runMainLoopUntil, .runMainLoop:
            return "serves the main executor on the program's main thread (C9.8), which generated programs never run on: "
                + "Tests/RuleTests' child processes run both forms on every backend (C9MainExecutorTests, Examples/MainExecutor), "
                + "and C9MainExecutorTests checks that both return false at once off the main thread"
        case .isScheduleInstrumented:
            return "the harness's question, not a program's: it picks the engine of every controlled run (seated when true), and "
                + "the report says 'controlled on seats'; DeterminismTests and ProductionMutantTests check what it promises"
        case .targetContractVersion:
            return "the harness's question, not a program's: the report names the failing rules newer than the version it "
                + "answers (ConformanceReport.rulesNewerThanTarget)"
        case .mainInit:
            return "for backends: its executor must run every job on the main actor, which no executor of a program does (C9.8)"
        case .sourceWithoutOrigin:
            return "for backends that wrap another: it calls the makeSource(of:) requirement through a function reference, "
                + "which the programs' `(makeSource(of:))(Int.self)` form does itself (MakeSource.Form.requirement, C8.3); "
                + "ForwardingBackendTests checks a wrapper forwarding with it"
        default:
            return nil
        }
    }

    /// An entry point whose result no rule of the contract states (an identity): programs call
    /// it, and no check can judge it. The coverage table says so instead of a count.
    public var judgedByNoRule: String? {
        switch self {
        case .taskBackend, .name, .preparedBackend:
            return "an identity: no rule of the contract states what it returns"
        default:
            return nil
        }
    }
}

extension ExecutorRef {
    /// What a step calls to get this executor: a serial executor with an odd index is made by
    /// `makeActorExecutor(label:)` (`BackendExecutorProvider`), every other by
    /// `makeSerialExecutor(label:)`; a counting executor is the harness's own.
    var entryPoints: [EntryPoint] {
        switch self {
        case .default: return [.defaultExecutor]
        case .inline: return [.inlineExecutor]
        case .serial: return isActorExecutor ? [.makeActorExecutor] : [.makeSerialExecutor]
        case .counting: return []
        }
    }
}

/// How a step gets the token of cancellation source `k`: no source is `CancellationToken.none`;
/// an even id reads the source's `token`, an odd one makes it with `CancellationToken(source:)`
/// (`ProgramExecution.token(_:)` does the same).
func tokenEntryPoints(_ k: Int?) -> [EntryPoint] {
    guard let k else { return [.tokenNone] }
    return k % 2 == 0 ? [.token] : [.tokenInit]
}
