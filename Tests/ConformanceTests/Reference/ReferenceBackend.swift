import Dispatch
import ScheduleKit
import Synchronization
import TaskAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A bug that a mutant of the reference backend has switched on; `.none` is the correct backend.
/// Each must be caught by the conformance suite's default budget (MutantTests).
enum Mutation: String, CaseIterable, Sendable {
    case none
    /// `tryComplete` on a completed task still returns true (C1.2).
    case twoTrySetWinners
    /// The first continuation of a task is handed over twice (C2.1).
    case continuationRunTwice
    /// Continuations are handed over last registered first (C2.4).
    case lifoContinuations
    /// A continuation registered on a completed task runs inside `whenComplete` (C2.3).
    case runInsideRegister
    /// `run` starts the body even when the token was cancelled first (C4.3).
    case tokenIgnoredBeforeStart
    /// User-written executors are ignored: their continuations go to the default one (C2.5).
    case wrongExecutor
    /// A completed task keeps its continuations' closures (C8.1).
    case closuresKeptAlive
    /// A body's `CancellationError` becomes a failure (C3.2).
    case cancellationAsFailure
    /// Every continuation but the first registered on a pending task is dropped: chains hang (C2.1).
    case lostContinuation
    /// `whenAll` collects values in completion order, not input order (C5.1).
    case whenAllCompletionOrder
    /// `whenAll` waits for every input before failing (C5.1).
    case whenAllNotFailingFast
    /// `finally` turns a failure into a cancellation (C3.3).
    case finallyLosesError
    /// `flatMap` takes the returned task's outcome without waiting for it (C2.6).
    case flatMapNotWaiting
    /// `whenComplete` checks for completion and stores the continuation in two critical
    /// sections: a completion in between loses it (C2.1, or a waiter hangs: C6.3).
    case lostContinuationOnRace
    /// As `lostContinuationOnRace`, without the `sched_yield` that widens its window: the two
    /// critical sections are a few instructions apart, so stress mode rarely lands a completion
    /// between them; controlled mode parks the registering driver at the schedule point between
    /// them and runs another driver's completion there (issue #10, point 4; C2.1, C6.3). Its fast
    /// path (completed: hand over at once) also overtakes continuations still queued for a
    /// delivery under way (C2.4).
    case lostContinuationInRegister
    /// Hand-offs to the inline executor recurse instead of going through the trampoline: a long
    /// chain overflows the stack (C2.7).
    case recursionInsteadOfTrampoline
    /// A body's thrown error is replaced by another one (C3.1).
    case errorReplaced
    /// A handler registered on an already-cancelled source is dropped instead of run at once (C4.2,
    /// seen as a cancelled token not taking effect: C4.3, C4.6).
    case handlerLostAfterCancel
    /// `wait()` registers its wake-up before announcing that it sleeps: a completion in between
    /// (or before the call) is never signalled, and the waiter sleeps forever (C6.1, C6.3).
    case lostWakeupInWait
    /// A source released while its task is pending leaves the task pending: its waiters hang
    /// (C8.3, the behaviour before issue #14).
    case sourceReleaseKeepsTaskPending
    /// Faulty serial executors (FaultySerialExecutor): each job runs twice (C7.3).
    case serialRunsJobsTwice
    /// Every third job on a serial executor is dropped (C7.3, surfacing through C8.3).
    case serialDropsJobs
    /// Serial executors run jobs synchronously inside `execute` (C2.3, C7.2).
    case serialRunsReentrantly
    /// A serial executor's first job blocks outside `wait()` past the watchdog (C2.1, culprit named).
    case serialJobBlocksOutsideWait
    /// `runAsync` runs its body although the token was cancelled before it started, and never
    /// passes a later cancellation to the Swift task (C9.6, seen as C4.3 or C4.4).
    case runAsyncIgnoresToken
    /// `cancel()` runs the first registered handler a second time (C4.2).
    case handlerRunTwice
    /// `cancel()` runs handlers last registered first (C4.2).
    case handlersOutOfOrder
    /// Disposing a registration does nothing: the handler still runs at cancellation (C4.2).
    case disposedHandlerRuns
    /// `whenAll` keeps every input alive in the backend forever (C5.5).
    case combinatorKeepsInputs
    /// Timers fire after a thousandth of their delay (C5.4, C4.6).
    case timersEarly
    /// Timers never fire (C5.4, C4.6).
    case timerNeverFires
    /// `wait(timeout:)` returns nil at once when the task is not done yet (C6.2).
    case waitTimeoutNilEarly
    /// `await value` ignores the awaiting Swift task's cancellation (C4.7).
    case awaitIgnoresCancellation
    /// `timeout(after:)` fails with `CancellationError` instead of `TaskError.timedOut` (C5.4).
    case timeoutWrongError
    /// `timeout(after:)`'s timer also fails the timed task itself (C5.4, not the task's rules).
    case timeoutCompletesTimedTask
    /// `whenAll` of more than 5 inputs drops the last value (C5.1).
    case whenAllWrongAbove5
    /// `race([])` completes cancelled instead of failing with `emptyInput` (C5.3).
    case raceEmptyWrong
    /// `cancel(after:)` cancels at once (C4.6).
    case cancelAfterImmediate
    /// `delay(_:token:)` ignores its token and succeeds when the time is up (C4.3).
    case delayIgnoresToken
    /// AsyncTaskExecutor bugs that controlled mode sees since it drives the backend's own executors
    /// (issue #10, point 3): a serial executor that, when two or more jobs wait, runs the newest
    /// first (C7.2, seen as C2.4 by continuations of one task).
    case serialReordersBacklog
    /// The default executor runs every 16th job handed to it twice (C7.3, seen as C2.1).
    case defaultRunsJobTwice
    /// The default executor drops every 24th job handed to it (C7.3, seen as C2.1: the task fails
    /// `abandoned`).
    case defaultDropsJob
    /// Issue 22's shapes and strict checks. A registration on a completed task for the inline
    /// executor runs in place, also while inline work runs (instead of queued behind it): an
    /// async loop recurses once per step (C2.7).
    case registrationRunsInPlace
    /// Completing a task hands its first inline continuation over after the next inline one
    /// (`["second", "first"]`, C2.4).
    case firstInlineHandedLast
    /// `status` reads `running` for every task not completed, a source's that nothing started
    /// included (C1.5).
    case statusRunningWhenPending
    /// Serial executors keep their jobs in a ring that, when it grows while wrapped, copies
    /// its slots in index order instead of from its head: jobs reorder (C7.2).
    case serialRingReordersOnGrowth
    /// Serial executors cannot tell their own jobs: `isCurrent` is always false (C9.7).
    case serialIsCurrentFalse
    /// `tryStart()` on a completed task returns true (changing nothing) (C1.5).
    case tryStartOnCompleted
    /// `finallyTask` passes the outcome on without waiting for the task its body returns, and
    /// ignores that task's failure (C3.3).
    case finallyTaskSkipsInner
    /// Races of issue 22's held-out survivors, with no schedule point and nothing to widen their
    /// windows: what the race rounds of stress programs are for. `wait(timeout:)` registers its
    /// wake-up, then says it sleeps: a completion in between signals no one, and the wait returns
    /// nil at its deadline although the task completed (C6.2).
    case lostWakeupInTimedWait
    /// `register` on a token stores the handler, then looks again whether cancellation was
    /// requested and, if so, runs it: a `cancel()` in between ran it already (twice: C4.2).
    case handlerRunTwiceOnRace
    /// A source's `tryStart()` checks for pending and starts in two critical sections: two racing
    /// calls both return true (C1.5).
    case tryStartChecksThenStarts
    /// Serial executors hand every 50th job to the parallel default queue at once: it may run
    /// beside the others (C7.2).
    case serialOneInFiftyParallel
    /// Issue 22 point 4: a bug that needs two preemptions. `whenComplete` on a task whose
    /// completing thread is still delivering (it won, and has not handed everything over yet)
    /// stores the continuation in a second critical section, trusting the delivery to take it;
    /// if the delivery ended in between, the store's returned outcome is ignored and the
    /// continuation is lost (C2.1). The completer must be stopped between winning and delivering
    /// (one preemption) and the registering thread between its two sections (a second), so a
    /// bounded-exhaustive exploration finds it with a bound of 2, never with 1.
    case registrationMissesDeliveryEnd
    /// Issue 28's blind spots, one mutant per class, each killed only by that class's check.
    /// Parameter spaces: `cancel(after:)` keeps one deadline, a later call replacing an earlier
    /// one (the earlier deadline, 20 ms, fires only when the later one, beyond the timing slack,
    /// does: C4.6).
    case cancelAfterReplacesDeadline
    /// Freed or not: disposing a timer stops it from firing but keeps its job (and what the job
    /// captures) until the time it would have fired (C8.2, the backend's `schedule(after:_:)`).
    case timerKeepsJobAfterDispose
    /// Cancel against start: a body's job claims its start gate and starts without reading the
    /// token again, so a body whose job comes after `cancel()` began running the token's
    /// handlers (the gate's handler not reached yet) still runs (C4.3).
    case startSkipsRequestedCheck
    /// Exact counts: a `Void` source completed inside a delivery this thread runs (a work
    /// group's `idle()`, completed by its count-out continuation) changes its status only when
    /// that delivery's queued work reaches it, so `idle()` is still pending when a later
    /// continuation of the last joined task runs (C9.11: it has succeeded by then, not later).
    case voidCompletionInDeliveryLate
    /// Backend configurations at their limits: the bound on jobs run on threads of their own
    /// (`ReferenceBackend(maxNestedThreads:)`, the reference's stand-in for C6.4's
    /// `maxBlockedThreads`) is one short, so 16 nested waits at a bound of 16 stall; at the
    /// default bound (512) nothing shows it (C6.4).
    case nestedBoundOffByOne
}

/// A small, correct backend on Dispatch (no C6.4 replacement threads), with one optional bug.
final class ReferenceBackend: TaskBackend {
    let mutation: Mutation
    let name: String
    let defaultExecutor: any AsyncTaskExecutor
    let inlineExecutor: any AsyncTaskExecutor = ReferenceInlineExecutor()
    /// Only for `.combinatorKeepsInputs`.
    let keptInputs = Locked<[any Sendable]>([])

    /// `maxNestedThreads`: how many jobs submitted from inside default jobs may run on threads
    /// of their own at once (the stand-in for C6.4's `maxBlockedThreads`, default 512).
    init(_ mutation: Mutation = .none, maxNestedThreads: Int = 512) {
        self.mutation = mutation
        let slots = mutation == .nestedBoundOffByOne ? maxNestedThreads - 1 : maxNestedThreads
        let queue = ReferenceQueueExecutor(queue: .global(), nestedOnOwnThread: true, nestedSlots: slots)
        defaultExecutor = mutation.defaultFault.map { FaultyDefaultExecutor(base: queue, fault: $0) } ?? queue
        name = mutation == .none ? "reference" : "mutant-\(mutation.rawValue)"
    }

    func makeSerialExecutor(label: String) -> any AsyncTaskExecutor {
        if let fault = mutation.serialFault { return FaultySerialExecutor(label: label, fault: fault) }
        if mutation == .serialReordersBacklog { return BacklogReorderingExecutor(label: label) }
        if mutation == .serialRingReordersOnGrowth { return RingSerialExecutor(label: label, reordersWhenGrowingWrapped: true) }
        return ReferenceQueueExecutor(queue: DispatchQueue(label: label), answersIsCurrent: mutation != .serialIsCurrentFalse)
    }

    func makeSource<T: Sendable>(of type: T.Type) -> any CompletionSource<T> {
        ReferenceSource<T>(backend: self)
    }

    func makeCancellationSource() -> any CancellationSource {
        ReferenceCancellationSource(backend: self)
    }

    func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable {
        let timer = ReferenceTimer(job, keepsJobAfterDispose: mutation == .timerKeepsJobAfterDispose)
        // Clamped before the multiplication: any delay is valid input (C5.4), and the nanoseconds
        // of one past 2^32 s would overflow `Int`.
        let (seconds, attoseconds) = min(max(delay, .zero), .seconds(Int64(1) << 32)).components
        var nanos = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        if mutation == .timersEarly { nanos /= 1_000 }
        if mutation == .timerNeverFires { return timer }
        // Waited for and fired on threads of the test backends' own (`OwnTimers`): on the global
        // queue, a timer waits for a thread while other suites' bodies block its few (C5.4).
        OwnTimers.shared.after(.nanoseconds(nanos)) { timer.fire() }
        return timer
    }

    func whenAll<T: Sendable>(_ tasks: [any AsyncTask<T>]) -> any AsyncTask<[T]> {
        if tasks.isEmpty { return completed(.success([])) }
        if mutation == .combinatorKeepsInputs { keptInputs.withLock { $0.append(tasks) } }
        if mutation == .whenAllWrongAbove5, tasks.count > 5 {
            return whenAll(Array(tasks.dropLast())).map(on: inlineExecutor) { $0 + [$0.last!] }
        }
        let source = makeSource(of: [T].self)
        let mutation = self.mutation
        if mutation == .whenAllNotFailingFast {
            whenAllSettled(tasks).whenComplete(on: inlineExecutor) { settled in
                let all = settled.value ?? []
                if let bad = all.first(where: { !$0.isSuccess }) {
                    source.tryComplete(bad.isCancelled ? .cancelled : .failure(bad.error ?? CancellationError()))
                } else {
                    source.trySucceed(all.compactMap(\.value))
                }
            }
            return source.task
        }
        // Slots by input index (or by arrival for the mutant); the first failure wins at once.
        let slots = Locked((values: [T?](repeating: nil, count: tasks.count), arrived: [T](), remaining: tasks.count))
        for (index, task) in tasks.enumerated() {
            task.whenComplete(on: inlineExecutor) { completion in
                guard case .success(let value) = completion else {
                    // Completed: the values collected so far go now, not when the last input ends (C5.5).
                    slots.withLock { $0 = (values: [], arrived: [], remaining: -1) }
                    source.tryComplete(completion.isCancelled ? .cancelled : .failure(completion.error ?? CancellationError()))
                    return
                }
                let done: [T]? = slots.withLock { state in
                    guard state.remaining > 0 else { return nil }
                    state.values[index] = value
                    state.arrived.append(value)
                    state.remaining -= 1
                    guard state.remaining == 0 else { return nil }
                    return mutation == .whenAllCompletionOrder ? state.arrived : state.values.compactMap { $0 }
                }
                if let done { source.trySucceed(done) }
            }
        }
        return source.task
    }

    func run<T: Sendable>(
        on executor: any AsyncTaskExecutor, token: CancellationToken, _ body: @escaping @Sendable (CancellationToken) throws -> T
    ) -> any AsyncTask<T> {
        let source = makeSource(of: T.self)
        let gate = mutation == .tokenIgnoredBeforeStart ? nil : StartGate.make(for: source, token: token)
        let mutation = self.mutation
        executor.execute {
            if mutation == .tokenIgnoredBeforeStart {
                source.tryStart()
                source.tryComplete(Completion { try body(token) })
                return
            }
            if mutation == .startSkipsRequestedCheck {
                guard gate?.claimForBody() ?? true, source.tryStart() else { return }
            } else {
                guard gate.start(source, token: token) else { return }
            }
            var completion = Completion { try body(token) }
            if mutation == .cancellationAsFailure, completion.isCancelled { completion = .failure(CancellationError()) }
            if mutation == .errorReplaced, completion.isFailure { completion = .failure(ReferenceError.bodyFailed) }
            source.tryComplete(completion)
        }
        return source.task
    }
}

/// The reference task: a `TaskStateMachine` under a `Mutex`, continuations handed over after the
/// lock is released.
final class ReferenceTask<T: Sendable>: AsyncTask, CompletionSource {
    typealias Success = T
    struct Continuation: Sendable {
        let executor: any AsyncTaskExecutor
        let body: @Sendable (Completion<T>) -> Void
    }

    /// The state machine (whose delivery phase queues registrations that race the completing
    /// hand-off behind it, C2.4), plus a count of registrations for `.lostContinuation`.
    struct State {
        var machine = TaskStateMachine<T, Continuation>()
        var registered = 0
        /// Completed, and its delivery not over (only for `.registrationMissesDeliveryEnd`).
        var delivering = false
    }

    let owner: ReferenceBackend
    private let state = Locked(State())
    /// Only for `.closuresKeptAlive`.
    private let kept = Locked<[Continuation]>([])

    init(backend: ReferenceBackend) {
        owner = backend
    }

    var backend: any TaskBackend { owner }
    var task: any AsyncTask<T> { self }
    var status: TaskStatus {
        let status = state.withLock { $0.machine.status }
        return owner.mutation == .statusRunningWhenPending && status == .pending ? .running : status
    }
    var completion: Completion<T>? { state.withLock { $0.machine.completion } }

    func tryStart() -> Bool {
        if owner.mutation == .tryStartChecksThenStarts {
            guard state.withLock({ $0.machine.status == .pending }) else { return false }
            _ = state.withLock { $0.machine.start() }
            return true
        }
        let (started, completed) = state.withLock { ($0.machine.start(), $0.machine.status == .completed) }
        return started || (owner.mutation == .tryStartOnCompleted && completed)
    }

    /// Completes the task and runs its delivery on the trampoline (docs/DESIGN.md, "Delivery on
    /// the trampoline"): the task stays in its delivering phase until the queued delivery ran, so
    /// a registration from another thread meanwhile is stored behind the earlier continuations
    /// instead of overtaking them (C2.4).
    func tryComplete(_ completion: Completion<T>) -> Bool {
        if owner.mutation == .voidCompletionInDeliveryLate, T.self == Void.self, ReferenceTrampoline.current.isDraining {
            guard state.withLock({ $0.machine.completion == nil }) else { return false }
            ReferenceTrampoline.current.submit { _ = self.completeNow(completion) }
            return true
        }
        return completeNow(completion)
    }

    private func completeNow(_ completion: Completion<T>) -> Bool {
        // Schedule points (TaskAPI's SchedulePoint.swift), never with the lock held: before each
        // critical section of completing and registering, and between winning and the hand-off.
        SchedulePoint.reach()
        guard
            state.withLock({ state in
                state.delivering = state.machine.completeForDelivery(completion)
                return state.delivering
            })
        else {
            return owner.mutation == .twoTrySetWinners
        }
        SchedulePoint.reach()
        scheduleDelivery(completion, completing: true)
        return true
    }

    /// Runs `deliver` on this thread's trampoline: at once, or queued behind the work it runs.
    /// `completing`: the delivery of the completion itself, not of a registration made after it.
    private func scheduleDelivery(_ completion: Completion<T>, completing: Bool) {
        if owner.mutation == .recursionInsteadOfTrampoline {
            deliver(completion, completing: completing)
            return
        }
        ReferenceTrampoline.current.submit { self.deliver(completion, completing: completing) }
    }

    /// Hands over the stored continuations in batches until none is left, which ends the
    /// delivering phase (`nextDelivery`).
    private func deliver(_ completion: Completion<T>, completing: Bool) {
        var firstBatch = completing
        while let batch = state.withLock({ state in
            let batch = state.machine.nextDelivery()
            if batch == nil { state.delivering = false }
            return batch
        }) {
            var list = Array(batch)
            if owner.mutation == .lifoContinuations { list.reverse() }
            if owner.mutation == .firstInlineHandedLast, completing, firstBatch {
                let inline = list.indices.filter { list[$0].executor is ReferenceInlineExecutor }
                if inline.count >= 2 { list.swapAt(inline[0], inline[1]) }
            }
            // The task's first continuation (the harness's observer), as before deliveries batched.
            if owner.mutation == .continuationRunTwice, firstBatch, let first = list.first { list.insert(first, at: 0) }
            firstBatch = false
            if owner.mutation == .closuresKeptAlive { kept.withLock { $0 += list } }
            for continuation in list { hand(continuation, completion) }
        }
    }

    func whenComplete(on executor: any AsyncTaskExecutor, _ body: @escaping @Sendable (Completion<T>) -> Void) {
        let target =
            owner.mutation == .wrongExecutor && !(executor is ReferenceQueueExecutor || executor is ReferenceInlineExecutor)
            ? owner.defaultExecutor : executor
        let continuation = Continuation(executor: target, body: body)
        SchedulePoint.reach()
        if owner.mutation == .lostContinuationOnRace || owner.mutation == .lostContinuationInRegister {
            if let done = state.withLock({ $0.machine.completion }) {
                hand(continuation, done)
                return
            }
            // The window: a completion here hands over the stored continuations without this one,
            // and `register` then returns the outcome, which is ignored.
            if owner.mutation == .lostContinuationOnRace { sched_yield() }
            SchedulePoint.reach()
            _ = state.withLock { $0.machine.register(continuation) }
            return
        }
        if owner.mutation == .registrationMissesDeliveryEnd, state.withLock({ $0.delivering }) {
            // The window: the delivery may end here; the store then returns the outcome (the
            // caller should hand it over), which is ignored.
            SchedulePoint.reach()
            _ = state.withLock { $0.machine.register(continuation) }
            return
        }
        if owner.mutation == .runInsideRegister,
            let done = state.withLock({ $0.machine.status == .completed ? $0.machine.completion : nil })
        {
            body(done)
            return
        }
        if owner.mutation == .registrationRunsInPlace, executor is ReferenceInlineExecutor,
            let done = state.withLock({ $0.machine.status == .completed ? $0.machine.completion : nil })
        {
            body(done)
            return
        }
        // Stored; on a task completed and delivered, this reopens the delivering phase, and the
        // delivery below hands it over, with anything registered meanwhile behind it (C2.4).
        let reopened: Completion<T>? = state.withLock { state in
            if owner.mutation == .lostContinuation, state.machine.completion == nil, state.registered > 0 { return nil }
            state.registered += 1
            guard state.machine.registerForDelivery(continuation) else { return nil }
            state.delivering = true
            return state.machine.completion
        }
        if let reopened { scheduleDelivery(reopened, completing: false) }
    }

    /// Runs on the trampoline (the delivery): inline continuations run at once (what they
    /// complete is queued on the trampoline in turn, so long chains stay loops, C2.7); every
    /// other executor gets the job directly (one that runs it synchronously adds one level).
    private func hand(_ continuation: Continuation, _ completion: Completion<T>) {
        let body = continuation.body
        if owner.mutation == .recursionInsteadOfTrampoline {
            let executor = continuation.executor is ReferenceInlineExecutor ? ReferenceRecursiveExecutor() : continuation.executor
            executor.execute { body(completion) }
            return
        }
        if continuation.executor is ReferenceInlineExecutor {
            body(completion)
        } else {
            continuation.executor.execute { body(completion) }
        }
    }

    func finally(
        on executor: any AsyncTaskExecutor, _ body: @escaping @Sendable (Completion<T>) throws -> Void
    ) -> any AsyncTask<T> {
        let losesError = owner.mutation == .finallyLosesError
        return continueWith(on: executor, token: .none) { completion in
            try body(completion)
            if losesError, completion.isFailure { throw CancellationError() }
            return try completion.get()
        }
    }

    /// TaskAPI's `finallyTask`, but for `.finallyTaskSkipsInner`, which passes the outcome on as
    /// soon as the body returned, whatever the task it returned does.
    func finallyTask(
        on executor: any AsyncTaskExecutor, _ body: @escaping @Sendable (Completion<T>) throws -> any AsyncTask<Void>
    ) -> any AsyncTask<T> {
        let inline = owner.inlineExecutor
        if owner.mutation == .finallyTaskSkipsInner {
            return continueWith(on: executor, token: .none) { completion in
                _ = try body(completion)
                return try completion.get()
            }
        }
        return continueWithTask(on: executor, token: .none) { completion in
            try body(completion).continueWith(on: inline, token: .none) { done in
                try done.get()
                return try completion.get()
            }
        }
    }

    func flatMap<U: Sendable>(
        on executor: any AsyncTaskExecutor, token: CancellationToken,
        _ transform: @escaping @Sendable (T) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        guard owner.mutation == .flatMapNotWaiting else {
            return continueWithTask(on: executor, token: token) { try transform($0.get()) }
        }
        return continueWith(on: executor, token: token) { completion in
            try transform(completion.get()).completion?.get() ?? { throw CancellationError() }()
        }
    }

    func wait() -> Completion<T> {
        if owner.mutation == .lostWakeupInWait { return lossyWait() }
        let semaphore = DispatchSemaphore(value: 0)
        let slot = Locked<Completion<T>?>(nil)
        whenComplete(on: owner.inlineExecutor) { completion in
            slot.withLock { $0 = completion }
            semaphore.signal()
        }
        semaphore.wait()
        return slot.withLock { $0 } ?? .cancelled
    }

    /// `.lostWakeupInWait`: the wake-up only signals a waiter that already said it sleeps.
    private func lossyWait() -> Completion<T> {
        let semaphore = DispatchSemaphore(value: 0)
        let sleeping = Atomic(false)
        whenComplete(on: owner.inlineExecutor) { _ in
            if sleeping.load(ordering: .acquiring) { semaphore.signal() }
        }
        sleeping.store(true, ordering: .releasing)
        semaphore.wait()
        return completion ?? .cancelled
    }

    func wait(timeout: Duration) -> Completion<T>? {
        if let completion { return completion }
        if owner.mutation == .waitTimeoutNilEarly { return nil }
        if owner.mutation == .lostWakeupInTimedWait { return lossyTimedWait(timeout) }
        let semaphore = DispatchSemaphore(value: 0)
        whenComplete(on: owner.inlineExecutor) { _ in semaphore.signal() }
        let (seconds, attoseconds) = timeout.components
        let nanos = max(0, Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        _ = semaphore.wait(past: .now() + .nanoseconds(nanos))
        return completion
    }

    /// `.lostWakeupInTimedWait`: as `lossyWait`, and the semaphore's verdict is the answer.
    private func lossyTimedWait(_ timeout: Duration) -> Completion<T>? {
        let semaphore = DispatchSemaphore(value: 0)
        let sleeping = Atomic(false)
        whenComplete(on: owner.inlineExecutor) { _ in
            if sleeping.load(ordering: .acquiring) { semaphore.signal() }
        }
        sleeping.store(true, ordering: .releasing)
        let (seconds, attoseconds) = timeout.components
        let nanos = max(0, Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        return semaphore.wait(past: .now() + .nanoseconds(nanos)) == .success ? completion : nil
    }
}

/// A Dispatch queue as an executor: the global queue (default) or a serial one.
final class ReferenceQueueExecutor: AsyncTaskExecutor {
    let queue: DispatchQueue
    /// The default executor: a job submitted from inside one of its jobs gets a queue (and
    /// so, when the pool is blocked, a thread) of its own, so that bodies blocked in nested
    /// `wait()`s never starve the global queue's few threads (C6.4).
    let nestedOnOwnThread: Bool
    /// At most this many nested jobs at once; beyond it one waits for a slot (up to 2 s, then it
    /// runs anyway, so that a test process is never left with threads blocked for good).
    private let nestedSlots: DispatchSemaphore
    /// Marks a serial queue as this executor's, for `isCurrent`.
    private let key = DispatchSpecificKey<ObjectIdentifier>()

    /// `answersIsCurrent` false: `.serialIsCurrentFalse`, whose serial queues are not marked.
    init(queue: DispatchQueue, nestedOnOwnThread: Bool = false, answersIsCurrent: Bool = true, nestedSlots: Int = 512) {
        self.queue = queue
        self.nestedOnOwnThread = nestedOnOwnThread
        self.nestedSlots = DispatchSemaphore(value: nestedSlots)
        if !nestedOnOwnThread, answersIsCurrent { queue.setSpecific(key: key, value: ObjectIdentifier(self)) }
    }

    /// Inside one of its jobs (C9.7): the default executor marks the threads running its jobs,
    /// a serial one its queue.
    var isCurrent: Bool {
        nestedOnOwnThread ? pthread_getspecific(insideDefaultJobKey) != nil : DispatchQueue.getSpecific(key: key) == ObjectIdentifier(self)
    }

    func execute(_ job: @escaping @Sendable () -> Void) {
        guard nestedOnOwnThread else { return queue.async(execute: job) }
        let nested = pthread_getspecific(insideDefaultJobKey) != nil
        let target = nested ? DispatchQueue(label: "reference.nested") : queue
        let slots = nestedSlots
        target.async {
            let slot = nested && slots.wait(timeout: .now() + 2) == .success
            defer { if slot { slots.signal() } }
            let outer = pthread_getspecific(insideDefaultJobKey)
            pthread_setspecific(insideDefaultJobKey, UnsafeRawPointer(bitPattern: 1))
            defer { pthread_setspecific(insideDefaultJobKey, outer) }
            job()
        }
    }
}

private let insideDefaultJobKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}()

/// Only for `.recursionInsteadOfTrampoline`: runs every job at once, nested.
final class ReferenceRecursiveExecutor: AsyncTaskExecutor {
    func execute(_ job: @escaping @Sendable () -> Void) { job() }
}

/// The error `.errorReplaced` puts in place of a body's own.
enum ReferenceError: Error { case bodyFailed }

/// Runs jobs on the calling thread, through the thread's trampoline (C2.7).
final class ReferenceInlineExecutor: AsyncTaskExecutor {
    func execute(_ job: @escaping @Sendable () -> Void) { ReferenceTrampoline.current.submit(job) }
}

/// A per-thread queue that turns nested hand-offs into a loop. Only its own thread touches it.
final class ReferenceTrampoline {
    private var queue: [() -> Void] = []
    private var draining = false
    /// Whether this thread is running the trampoline's work now.
    var isDraining: Bool { draining }

    func submit(_ job: @escaping () -> Void) {
        if draining { queue.append(job); return }
        draining = true
        job()
        while !queue.isEmpty { queue.removeFirst()() }
        draining = false
    }

    static var current: ReferenceTrampoline {
        if let pointer = pthread_getspecific(trampolineKey) {
            return Unmanaged<ReferenceTrampoline>.fromOpaque(pointer).takeUnretainedValue()
        }
        let trampoline = ReferenceTrampoline()
        // Released by the key's destructor when the thread exits.
        pthread_setspecific(trampolineKey, Unmanaged.passRetained(trampoline).toOpaque())
        return trampoline
    }
}

private let trampolineKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { pointer in
        guard let pointer else { return }
        Unmanaged<ReferenceTrampoline>.fromOpaque(pointer).release()
    }
    return key
}()

final class ReferenceCancellationSource: CancellationSource {
    private let owner: ReferenceBackend
    private let state = Locked(CancellationState<@Sendable () -> Void>())
    /// Signalled once the first `cancel()` ran its handlers; each later waiter passes it on (C4.1).
    private let handlersRan = DispatchSemaphore(value: 0)
    /// The thread running the handlers: a `cancel()` from a handler returns at once.
    private let runner = Locked<pthread_t?>(nil)
    /// Only for `.cancelAfterReplacesDeadline`: the one deadline kept.
    private let lastTimer = Locked<(any Disposable)?>(nil)

    init(backend: ReferenceBackend) { owner = backend }

    var isCancellationRequested: Bool { state.withLock { $0.isCancellationRequested } }

    func cancel() {
        guard var handlers = state.withLock({ $0.cancel() }) else {
            if let thread = runner.withLock({ $0 }), pthread_equal(thread, pthread_self()) != 0 { return }
            handlersRan.wait()
            handlersRan.signal()
            return
        }
        runner.withLock { $0 = pthread_self() }
        defer { handlersRan.signal() }
        if owner.mutation == .handlersOutOfOrder { handlers.reverse() }
        if owner.mutation == .handlerRunTwice, let first = handlers.first { handlers.append(first) }
        for handler in handlers { handler() }
    }

    func cancel(after delay: Duration) {
        if owner.mutation == .cancelAfterImmediate { return cancel() }
        let timer = owner.schedule(after: delay) { [weak self] in self?.cancel() }
        if owner.mutation == .cancelAfterReplacesDeadline {
            lastTimer.withLock { last in
                last?.dispose()
                last = timer
            }
        }
    }

    func register(_ handler: @escaping @Sendable () -> Void) -> any Disposable {
        guard let id = state.withLock({ $0.register(handler) }) else {
            if owner.mutation == .handlerLostAfterCancel { return NoopDisposable() }
            handler()
            return NoopDisposable()
        }
        if owner.mutation == .handlerRunTwiceOnRace, isCancellationRequested { handler() }
        return Registration(source: self, id: id)
    }

    private struct Registration: Disposable {
        weak var source: ReferenceCancellationSource?
        let id: UInt64
        func dispose() {
            if source?.owner.mutation == .disposedHandlerRuns { return }
            source?.state.withLock { $0.dispose(id) }
        }
    }
}

/// A one-shot timer whose job is released by firing or disposing, whichever comes first.
final class ReferenceTimer: Disposable {
    private let job: Locked<(@Sendable () -> Void)?>
    /// Only for `.timerKeepsJobAfterDispose`: disposed, the job is kept but not run.
    private let keepsJobAfterDispose: Bool
    private let disposed = Atomic(false)
    init(_ job: @escaping @Sendable () -> Void, keepsJobAfterDispose: Bool = false) {
        self.job = Locked(job)
        self.keepsJobAfterDispose = keepsJobAfterDispose
    }
    func fire() {
        let job = job.withLock { job in
            defer { job = nil }; return job
        }
        if !disposed.load(ordering: .acquiring) { job?() }
    }
    func dispose() {
        disposed.store(true, ordering: .releasing)
        if !keepsJobAfterDispose { job.withLock { $0 = nil } }
    }
}
