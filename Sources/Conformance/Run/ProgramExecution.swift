import Foundation
import ScheduleKit
import Synchronization
import TaskAPI

/// Executes the steps of one program against a backend and logs what happens. Knows nothing of
/// the contract: checking is the oracle's and the checkers' job, over the log.
final class ProgramExecution: Sendable {
    let program: Program
    let backend: any TaskBackend
    let executors: ProgramExecutors
    let log: EventLog
    let slots: Slots
    let payloads: Payloads
    /// Weak references to every body's captures and every task, for C8.1 and C8.2.
    let probes = PlainLocked<[(what: String, reference: WeakReference)]>([])
    let tasks = PlainLocked<[(id: Int, reference: WeakReference)]>([])
    /// Weak references to every other object the program made that the contract says is freed
    /// (C8.2, issue 28): cancellation sources and prepared tasks, by name.
    let objects = PlainLocked<[(what: String, reference: WeakReference)]>([])
    /// The step each driver is in (-1: none), for the watchdog.
    let currentStep: PlainLocked<[Int]>
    /// Handler registrations and timers not fired yet.
    let extras = HandlersAndTimers()
    /// How long the steps that wait for the backend themselves (long chains, nested waits, probed
    /// combinators) wait: the configuration's timing slack.
    let timingSlack: Duration
    /// How long a step that watches for releases itself (a probed combinator, C5.5) waits for
    /// them: the leak limit of the run (C8.1, C8.2), no longer than the timing slack.
    let leakLimit: Duration
    /// A `PinnedActor` for each serial executor that is an actor executor (C9.9, C9.10), by index.
    let pinned: [Int: ProgramActor]
    /// A seated run (`SeatedRun`): the bodies and jobs the program hands the backend reach plain
    /// schedule points (`jobPoint`).
    let seated: Bool

    /// `log` is the run's event log (a seated run's stamps its events with the run's clock).
    init(
        program: Program, backend: any TaskBackend, executors: ProgramExecutors, timingSlack: Duration,
        leakLimit: Duration? = nil, log: EventLog? = nil, seated: Bool = false
    ) {
        self.program = program
        self.seated = seated
        self.backend = backend
        self.executors = executors
        self.timingSlack = timingSlack
        self.leakLimit = min(timingSlack, leakLimit ?? timingSlack)
        self.log = log ?? EventLog(taskCount: program.taskCount)
        slots = Slots(program: program)
        payloads = Payloads(count: 2 * program.steps.count)
        currentStep = PlainLocked(Array(repeating: -1, count: program.drivers + 1))
        var pinned: [Int: ProgramActor] = [:]
        for (index, executor) in executors.serial.enumerated() {
            if let actorExecutor = executor as? any ActorExecutor { pinned[index] = ProgramActor(executor: actorExecutor) }
        }
        self.pinned = pinned
    }

    /// The actor pinned to `ref`, a serial executor made by `makeActorExecutor(label:)`; nil if the
    /// backend made none (or a controlled run wraps the executor), and then the step's call falls
    /// back to the executor itself, logged, so that the form is not counted as called.
    func pinnedActor(_ ref: ExecutorRef, step: Int) -> ProgramActor? {
        if case .serial(let n) = ref, let actor = pinned[n] { return actor }
        log.append(.pinnedUnavailable(step: step))
        return nil
    }

    /// Runs driver `driver`'s steps in program order, on the calling thread.
    func runDriver(_ driver: Int) {
        ThreadInfo.driverMarker = driver + 1
        defer { ThreadInfo.driverMarker = 0 }
        for (index, step) in program.steps.enumerated() where step.driver == driver {
            runStep(index)
            pause(step.pause)
        }
    }

    /// Runs step `index` on the calling thread, which acts as its driver meanwhile; no pause.
    func runStep(_ index: Int) {
        let driver = program.steps[index].driver
        let outer = ThreadInfo.driverMarker
        ThreadInfo.driverMarker = driver + 1
        defer { ThreadInfo.driverMarker = outer }
        currentStep.withLock { $0[driver] = index }
        log.append(.stepStart(step: index))
        program.steps[index].operation.payload.perform(in: self, step: index)
        log.append(.stepEnd(step: index))
        currentStep.withLock { $0[driver] = -1 }
    }

    /// Task `t`'s real status, not what the harness's observer logged: `nil` once freed.
    func isCompleted(task t: Int) -> Bool? {
        if let slot = slots.peekTask(t) { return slot.isCompleted }
        let object = tasks.withLock { $0.first { $0.id == t }?.reference }?.object
        return object.flatMap(TaskSlot.isCompleted)
    }

    /// Whether step `index` finds every id it uses (a seated run's drivers start a step then; it
    /// may still block in the backend).
    func inputsReady(_ index: Int) -> Bool {
        slots.isReady(program.steps[index].operation.uses)
    }

    /// Whether step `index` can run now without blocking (controlled mode): every id it uses
    /// is there to take, and a blocking `wait()`'s task has completed.
    func canRunWithoutBlocking(_ index: Int) -> Bool {
        let operation = program.steps[index].operation
        guard slots.isReady(operation.uses) else { return false }
        switch operation.payload.blocking {
        case .untilCompleted(let t): return slots.peekTask(t)?.isCompleted ?? false
        case .untilGroupIdle(let g): return slots.peekGroup(g)?.pendingCount == 0
        case .never, .untilTimeout, .untilEarlierUses: return true
        }
    }

    // MARK: - Bodies

    /// Every body: logs its start with the input it saw, checks its producer's payload (C2.2),
    /// reads its own task's status (C1.5) and, given its `executor`, whether that executor says it
    /// is current (C9.7), spins a little so that overlaps show, then does `action`.
    func body(
        task t: Int, step: Int, input: Outcome?, action: BodyAction, token: CancellationToken?, probe: Probe,
        executor: ExecutorRef? = nil
    ) throws -> Int {
        withExtendedLifetime(probe) {}
        jobPoint()
        let inside = BodyReads(status: slots.peekTask(t)?.status, isCurrent: executor.flatMap(isCurrent))
        log.append(
            .bodyStart(
                task: t, inner: false, input: input, counting: ThreadInfo.countingMarker,
                payloadOK: input.flatMap(checkPayload), inside: inside))
        defer { log.append(.bodyEnd(task: t, inner: false)) }
        jobPoint()
        spin(step % 4 * 100)
        switch action {
        case .returns:
            payloads.write(step)
            return ProgramValues.value(step: step)
        case .throwsError:
            throw ProgramError(ProgramValues.value(step: step))
        case .throwsCancellation:
            throw CancellationError()
        case .checkpoint:
            log.append(.checkpointBegan(task: t))
            do {
                // No token: an async body, whose token reaches it as Swift task cancellation (C9.6).
                if let token { try token.checkpoint() } else { try Task.checkCancellation() }
                log.append(.checkpoint(task: t, threw: false))
            } catch {
                log.append(.checkpoint(task: t, threw: true))
                throw error
            }
            payloads.write(step)
            return ProgramValues.value(step: step)
        }
    }

    /// On a seated run, a plain schedule point in the program's own code that the backend runs (a
    /// body, a burst's job, a cancellation handler): at its start, where a thread may be
    /// preempted between the backend's deciding to run it and its first effect, and inside a
    /// body, where another seat may run meanwhile (C7.2's overlaps and reorders show only then).
    /// The backend's points alone leave code that reaches none atomic: a mailbox that lets a
    /// second drain start beside its last message was found in 300 to 400 programs, not tens.
    /// Off elsewhere: on interposed executors a driver running an inline body would park at it,
    /// which changes nothing the hand-over does not already interleave.
    @inline(__always)
    func jobPoint() {
        Self.jobPoint(seated: seated)
    }

    /// `jobPoint()` for a closure that keeps only the flag.
    @inline(__always)
    static func jobPoint(seated: Bool) {
        if seated { SchedulePoint.reach("a program's body, job or handler") }
    }

    /// `isCurrent` of the executor `ref` names, for the backend's own executors (a counting
    /// executor is the harness's: it cannot tell, and that is no finding).
    private func isCurrent(_ ref: ExecutorRef) -> Bool? {
        switch ref {
        case .default, .inline, .serial: return executors[ref].isCurrent
        case .counting: return nil
        }
    }

    /// The task a body of step `step` (task `t`) returns (C2.6, C9.5): the existing one, or one it
    /// makes now: run on the default executor (its body `innerBody`), succeeded (its payload
    /// written first, C2.2), failed or cancelled.
    func innerTask(_ inner: InnerTask, task t: Int, step: Int, existing: (any AsyncTask<Int>)?) -> any AsyncTask<Int> {
        let value = ProgramValues.innerValue(step: step)
        switch inner {
        case .existing: return existing ?? backend.cancelled(as: Int.self)
        case .new: return backend.run(on: executors.defaultExecutor, token: .none) { _ in self.innerBody(task: t, step: step) }
        case .succeeded:
            payloads.write(program.steps.count + step)
            return backend.succeeded(value)
        case .failed: return backend.failed(ProgramError(value), as: Int.self)
        case .cancelled: return backend.cancelled(as: Int.self)
        }
    }

    /// The `Void` task a `finallyTask` body returns: a new one run on the default executor, or
    /// `innerTask`'s `asVoid()`.
    func innerVoidTask(_ inner: InnerTask, task t: Int, step: Int, existing: (any AsyncTask<Int>)?) -> any AsyncTask<Void> {
        if inner == .new {
            return backend.run(on: executors.defaultExecutor, token: .none) { _ in _ = self.innerBody(task: t, step: step) }
        }
        return innerTask(inner, task: t, step: step, existing: existing).asVoid()
    }

    func innerBody(task t: Int, step: Int) -> Int {
        jobPoint()
        log.append(
            .bodyStart(
                task: t, inner: true, input: nil, counting: ThreadInfo.countingMarker, payloadOK: nil,
                inside: BodyReads(status: nil, isCurrent: nil)))
        defer { log.append(.bodyEnd(task: t, inner: true)) }
        jobPoint()
        payloads.write(program.steps.count + step)
        return ProgramValues.innerValue(step: step)
    }

    /// The payload check for a success value seen by a consumer; `nil` when nothing to check.
    private func checkPayload(_ outcome: Outcome) -> Bool? {
        guard case .success(let value) = outcome, let key = payloadKey(of: value) else { return nil }
        return payloads.check(key)
    }

    func payloadKey(of value: Int) -> Int? {
        let steps = program.steps.count
        if value >= 1, value <= steps { return value - 1 }
        if value > 100_000, value <= 100_000 + steps { return steps + value - 100_001 }
        if value < 0, -value <= steps { return -value - 1 }
        return nil
    }

    // MARK: - Held sources (phase 2)

    /// Completes every held source from the calling thread (the harness, driver `drivers`).
    func completeHeldSources() {
        let outer = ThreadInfo.driverMarker
        ThreadInfo.driverMarker = program.drivers + 1
        defer { ThreadInfo.driverMarker = outer }
        // Prepared tasks no step started: the harness starts them, on the default executor (C9.3).
        let startSteps = Set(program.steps.compactMap { $0.operation.payload.startedPrepared?.task })
        for (t, prepared) in slots.allPrepared().sorted(by: { $0.key < $1.key }) where !startSteps.contains(t) {
            let made = creatingStep(of: t)
            log.append(.started(step: made, task: t, ok: prepared.tryStart()))
        }
        for (index, step) in program.steps.enumerated() {
            guard let held = step.operation.payload.heldSource, let source = slots.source(ifPresent: held.task) else { continue }
            let t = held.task
            payloads.write(index)
            if !source.tryComplete(held.outcome, value: ProgramValues.heldValue(step: index)) {
                log.append(
                    .setterTrouble(
                        task: t, detail: "the harness's trySucceed/tryFail/tryCancel on a held source, its only setter, returned false"))
            }
        }
    }

    // MARK: - Helpers

    private func creatingStep(of t: Int) -> Int {
        program.steps.firstIndex { $0.operation.createdTask == t } ?? -1
    }

    func register(_ id: Int, _ slot: TaskSlot, source: SourceSlot? = nil) {
        slot.observe(id, log: log, inline: backend.inlineExecutor)
        tasks.withLock { $0.append((id, WeakReference(slot.object))) }
        slots.put(id, slot, source: source)
    }

    /// The token of cancellation source `id` (`.none` for none): read from the source's `token`
    /// for an even id, made with `CancellationToken(source:)` for an odd one (`tokenEntryPoints`).
    func token(_ id: Int?) -> CancellationToken {
        guard let id, let source = slots.token(id) else { return .none }
        return id % 2 == 0 ? source.token : CancellationToken(source: source)
    }

    /// Runs `work` where `host` says: at once on the calling thread (no host), inside a
    /// continuation registered on the host's task, or inside a job handed to its executor. The
    /// host's task is taken now, by the driver; the run is not quiescent until the work ended.
    func hosted(_ host: CallHost?, step: Int, _ work: @escaping @Sendable () -> Void) {
        guard let host else { return work() }
        let log = self.log
        let body: @Sendable () -> Void = {
            log.append(.hostStart(step: step))
            work()
            log.append(.hostEnd(step: step))
        }
        switch host {
        case .continuation(let t, let executor):
            guard let slot = slots.task(t) else { return }
            log.callPending()
            slot.whenComplete(on: executors[executor]) { _ in body() }
        case .job(let executor):
            log.callPending()
            executors[executor].execute(body)
        }
    }

    /// Watches `object`, which the program made, for C8.2: it must be freed once the harness
    /// dropped its references.
    func watchFreed(_ what: String, _ object: AnyObject) {
        objects.withLock { $0.append((what, WeakReference(object))) }
    }

    func makeProbe(_ what: String) -> Probe {
        let probe = Probe()
        probes.withLock { $0.append((what, WeakReference(probe))) }
        return probe
    }

    static func completion(_ outcome: SetterOutcome, value: Int) -> Completion<Int> {
        switch outcome {
        case .success: return .success(value)
        case .failure: return .failure(ProgramError(value))
        case .cancel: return .cancelled
        }
    }

    private func pause(_ pause: Pause) {
        switch pause {
        case .none: break
        case .yield(let n): for _ in 0..<n { sched_yield() }
        case .spin(let n): spin(n)
        case .sleep(let us): usleep(UInt32(us))
        }
    }

    func spin(_ iterations: Int) {
        let sink = Atomic(0)
        for i in 0..<iterations { sink.store(i, ordering: .relaxed) }
    }
}

/// What a body captures, so that the harness can tell when the body is released (C8.1).
final class Probe: Sendable {}

/// A `PinnedActor` of a program (C9.10): the stand-in for a "ui" actor. Its continuations' bodies
/// run isolated to it, on its executor, and count their entries in its state.
actor ProgramActor: PinnedActor {
    nonisolated let executor: any ActorExecutor
    /// Bodies that entered the actor, counted in its isolated state.
    private(set) var entries = 0

    init(executor: any ActorExecutor) {
        self.executor = executor
    }

    /// Counts an entry; callable synchronously only from code isolated to the actor.
    func enter() {
        entries += 1
    }
}

/// The task a value form's body returned (C2.6), kept to be compared with the form's value.
final class ReturnedTask: Sendable {
    private let task = PlainLocked<(any AsyncTask<Int>)?>(nil)

    /// Keeps `returned` and returns it, for the body's `return`.
    func keep(_ returned: any AsyncTask<Int>) -> any AsyncTask<Int> {
        task.withLock { $0 = returned }
        return returned
    }

    /// `value` if `candidate` is the very task the body returned, else `notTheReturnedTask`.
    func read(_ candidate: any AsyncTask<Int>, value: Int) -> Int {
        task.withLock { $0 } === candidate ? value : ProgramValues.notTheReturnedTask
    }
}

/// A weak reference that can cross threads.
final class WeakReference: @unchecked Sendable {
    // @unchecked: `weak var` loads and stores are atomic in Swift's runtime; the object itself
    // is never touched through it, only compared with nil.
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
}
