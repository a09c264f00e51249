/// A public entry point of TaskAPI's contract types (`AsyncTask`, `CompletionSource`,
/// `TaskBackend`, `CancellationSource`, `CancellationToken`, `Executor`, `TaskFactory`,
/// `PreparedTask`): every protocol requirement and every public member or extension method, by
/// its Swift name. Overloads that share a name are told apart by a tag in brackets: `executor?`
/// (the convenience taking an optional executor), `task` (a body returning a task, unwrapped),
/// `no token` (a body that takes no token), `pack` (variadic generics), `unavailable`.
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
    case whenComplete = "AsyncTask.whenComplete(_:)"
    case wait = "AsyncTask.wait()"
    case waitTimeout = "AsyncTask.wait(timeout:)"
    case get = "AsyncTask.get()"
    case value = "AsyncTask.value"
    case continueWith = "AsyncTask.continueWith(on:token:_:)"
    case continueWithConvenience = "AsyncTask.continueWith(on:token:_:) [executor?]"
    case continueWithTask = "AsyncTask.continueWithTask(on:token:_:)"
    case continueWithTaskConvenience = "AsyncTask.continueWithTask(on:token:_:) [executor?]"
    case map = "AsyncTask.map(on:token:_:)"
    case mapConvenience = "AsyncTask.map(on:token:_:) [executor?]"
    case flatMap = "AsyncTask.flatMap(on:token:_:)"
    case flatMapConvenience = "AsyncTask.flatMap(on:token:_:) [executor?]"
    case then = "AsyncTask.then(on:token:_:)"
    case thenTask = "AsyncTask.then(on:token:_:) [task]"
    case recover = "AsyncTask.recover(on:token:_:)"
    case recoverTask = "AsyncTask.recover(on:token:_:) [task]"
    case recoverConvenience = "AsyncTask.recover(on:token:_:) [executor?]"
    case recoverTaskConvenience = "AsyncTask.recover(on:token:_:) [executor?, task]"
    case `catch` = "AsyncTask.catch(on:token:_:)"
    case catchTask = "AsyncTask.catch(on:token:_:) [task]"
    case finally = "AsyncTask.finally(on:_:)"
    case finallyConvenience = "AsyncTask.finally(on:_:) [executor?]"
    case finallyTask = "AsyncTask.finallyTask(on:_:)"
    case finallyTaskConvenience = "AsyncTask.finallyTask(on:_:) [executor?]"
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
    case makeSerialExecutor = "TaskBackend.makeSerialExecutor(label:)"
    case makeActorExecutor = "TaskBackend.makeActorExecutor(label:)"
    case mainExecutor = "TaskBackend.mainExecutor"
    case makeSourceOf = "TaskBackend.makeSource(of:)"
    case makeSourceInferred = "TaskBackend.makeSource()"
    case makeTask = "TaskBackend.makeTask(_:)"
    case makeCancellationSource = "TaskBackend.makeCancellationSource()"
    case makeCancellationSourceLinked = "TaskBackend.makeCancellationSource(linkedTo:)"
    case schedule = "TaskBackend.schedule(after:_:)"
    case run = "TaskBackend.run(on:token:_:)"
    case runConvenience = "TaskBackend.run(on:token:_:) [executor?]"
    case runNoToken = "TaskBackend.run(on:token:_:) [executor?, no token]"
    case runTask = "TaskBackend.run(on:token:_:) [executor?, task]"
    case runTaskNoToken = "TaskBackend.run(on:token:_:) [executor?, task, no token]"
    case runAsyncSpelledRun = "TaskBackend.run(token:_:)"
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
    case retryTask = "TaskBackend.retry(attempts:backoff:on:token:while:_:) [task]"
    case prepare = "TaskBackend.prepare(on:token:_:)"
    case prepareNoToken = "TaskBackend.prepare(on:token:_:) [no token]"

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

    // MARK: Executor
    case execute = "Executor.execute(_:)"
    case isCurrent = "Executor.isCurrent"

    // MARK: TaskFactory
    case factoryInit = "TaskFactory.init(backend:executor:token:)"
    case factoryBackend = "TaskFactory.backend"
    case factoryExecutor = "TaskFactory.executor"
    case factoryToken = "TaskFactory.token"
    case factoryWithExecutor = "TaskFactory.with(executor:)"
    case factoryWithToken = "TaskFactory.with(token:)"
    case factoryRun = "TaskFactory.run(_:)"
    case factoryRunNoToken = "TaskFactory.run(_:) [no token]"
    case factoryRunTask = "TaskFactory.run(_:) [task]"
    case factoryPrepare = "TaskFactory.prepare(_:)"
    case factoryContinueWith = "TaskFactory.continueWith(_:_:)"
    case factoryContinueWithTask = "TaskFactory.continueWithTask(_:_:)"

    // MARK: PreparedTask
    case preparedBackend = "PreparedTask.backend"
    case preparedTask = "PreparedTask.task"
    case preparedToken = "PreparedTask.token"
    case preparedIsStarted = "PreparedTask.isStarted"
    case preparedTryStart = "PreparedTask.tryStart(on:)"
    case preparedStart = "PreparedTask.start(on:)"
    case preparedCancel = "PreparedTask.cancel()"

    public var description: String { rawValue }

    public static func < (lhs: EntryPoint, rhs: EntryPoint) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Why no generated program calls this entry point, for the few that cannot be generated;
    /// `nil` for every other (the coverage table then counts its programs and checks).
    public var notGenerated: String? {
        switch self {
        case .whenAllMixedArray:
            return "cannot be called: it is `@available(*, unavailable)`, there only to turn a mixed array literal into a compile-time message"
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
        case .serial(let n): return n % 2 == 1 ? [.makeActorExecutor] : [.makeSerialExecutor]
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
