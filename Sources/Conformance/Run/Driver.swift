import Foundation
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
    let probes = Locked<[(what: String, reference: WeakReference)]>([])
    let tasks = Locked<[(id: Int, reference: WeakReference)]>([])
    /// The step each driver is in (-1: none), for the watchdog.
    let currentStep: Locked<[Int]>
    /// State of the operations of ExtendedOperations.swift (handlers, timers).
    let extras = ExecutionExtras()

    init(program: Program, backend: any TaskBackend, executors: ProgramExecutors) {
        self.program = program
        self.backend = backend
        self.executors = executors
        log = EventLog(taskCount: program.taskCount)
        slots = Slots(program: program)
        payloads = Payloads(count: 2 * program.steps.count)
        currentStep = Locked(Array(repeating: -1, count: program.drivers + 1))
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
        perform(program.steps[index].operation, at: index)
        log.append(.stepEnd(step: index))
        currentStep.withLock { $0[driver] = -1 }
    }

    /// Task `t`'s real status, not what the harness's observer logged: `nil` once freed.
    func isCompleted(task t: Int) -> Bool? {
        if let slot = slots.peekTask(t) { return slot.isCompleted }
        let object = tasks.withLock { $0.first { $0.id == t }?.reference }?.object
        return object.flatMap(TaskSlot.isCompleted)
    }

    /// Whether step `index` can run now without blocking (controlled mode): every id it uses
    /// exists, a drop's earlier users are done, and a blocking `wait()`'s task has completed.
    func canRunWithoutBlocking(_ index: Int) -> Bool {
        let operation = program.steps[index].operation
        guard slots.isReady(operation) else { return false }
        if case .wait(let t) = operation { return slots.peekTask(t)?.isCompleted ?? false }
        return true
    }

    // MARK: - Operations

    private func perform(_ operation: Operation, at step: Int) {
        switch operation {
        case .makeSource(let t, _):
            let source = backend.makeSource(of: Int.self)
            register(t, .int(source.task), source: source)
        case .complete(let s, let outcome, let throwing):
            guard let source = slots.source(s) else { return }
            payloads.write(step)
            let completion = Self.completion(outcome, value: ProgramValues.value(step: step))
            if throwing {
                do {
                    try source.complete(completion)
                    log.append(.setter(step: step, source: s, won: true, threw: nil))
                } catch {
                    log.append(.setter(step: step, source: s, won: false, threw: ErrorValue(error)))
                }
            } else {
                let won = source.tryComplete(completion)
                log.append(.setter(step: step, source: s, won: won, threw: nil))
            }
        case .makeCompleted(let t, let outcome):
            payloads.write(step)
            register(t, .int(backend.completed(Self.completion(outcome, value: ProgramValues.value(step: step)))))
        case .run(let t, let ref, let tokenID, let action):
            let token = self.token(tokenID)
            let probe = makeProbe("body of t\(t)")
            let task = backend.run(on: executors[ref], token: token) { [self] token in
                try body(task: t, step: step, input: nil, action: action, token: token, probe: probe)
            }
            register(t, .int(task))
        case .chain(let t, let kind, let antecedentID, let ref, let tokenID, let action):
            guard let antecedent = slots.task(antecedentID)?.intTask else { return }
            let inner: (any AsyncTask<Int>)? = {
                if case .flatMapExisting(let id) = kind { return slots.task(id)?.intTask }
                return nil
            }()
            let task = chain(t, kind: kind, on: antecedent, inner: inner, executor: executors[ref],
                             token: token(tokenID), action: action, step: step)
            register(t, .int(task))
        case .combine(let t, let kind, let inputIDs):
            let inputs = inputIDs.compactMap { slots.task($0)?.intTask }
            switch kind {
            case .whenAll: register(t, .values(backend.whenAll(inputs)))
            case .whenAllSettled: register(t, .settled(backend.whenAllSettled(inputs)))
            case .race: register(t, .int(backend.race(inputs)))
            case .any: register(t, .int(backend.any(inputs)))
            }
        case .delay(let t, let us, let tokenID):
            register(t, .void(backend.delay(.microseconds(us), token: token(tokenID))))
        case .timeout(let t, let antecedentID, let us):
            guard let antecedent = slots.task(antecedentID)?.intTask else { return }
            register(t, .int(antecedent.timeout(after: .microseconds(us))))
        case .makeToken(let k, let parentID):
            let source: any CancellationSource
            if let parentID, let parent = slots.token(parentID) {
                source = backend.makeCancellationSource(linkedTo: [parent.token])
            } else {
                source = backend.makeCancellationSource()
            }
            slots.putToken(k, source)
        case .cancel(let k):
            slots.token(k)?.cancel()
        case .cancelAfter(let k, let us):
            guard let source = slots.token(k) else { return }
            armTimerProbe(on: source, step: step, microseconds: us)
            source.cancel(after: .microseconds(us))
        case .wait(let t):
            guard let slot = slots.task(t) else { return }
            log.append(.waited(step: step, task: t, result: slot.wait()))
            log.append(.status(step: step, task: t, status: slot.status))
        case .waitTimeout(let t, let us):
            guard let slot = slots.task(t) else { return }
            let result = slot.wait(timeout: .microseconds(us))
            log.append(.waited(step: step, task: t, result: result))
            if result != nil { log.append(.status(step: step, task: t, status: slot.status)) }
        case .await(let t, let cancelled):
            guard let slot = slots.task(t) else { return }
            let log = self.log
            log.awaitStarted(cancelled: cancelled)
            let swiftTask = Task.detached(executorPreference: AwaitExecutor.shared) {
                let result: Result<Outcome, any Error>
                do { result = .success(try await slot.value()) } catch { result = .failure(error) }
                log.append(.awaited(step: step, task: t, result: Outcome(awaiting: result)))
                log.awaitFinished(cancelled: cancelled)
            }
            if cancelled {
                swiftTask.cancel()
                log.append(.swiftCancelled(step: step))
            }
        case .drop(let t):
            slots.drop(t)
        case .releaseSource(let s):
            slots.releaseSource(s)
        case .submit(let ref):
            let log = self.log
            executors[ref].execute { log.append(.jobRan(step: step)) }
        case .prepare(let t, let tokenID, let action):
            let probe = makeProbe("prepared body of t\(t)")
            let prepared = backend.prepare(on: executors.defaultExecutor, token: token(tokenID)) { [self] token in
                try body(task: t, step: step, input: nil, action: action, token: token, probe: probe)
            }
            slots.putPrepared(t, prepared)
            register(t, .int(prepared.task))
        case .start(let t, let ref):
            guard let prepared = slots.prepared(t) else { return }
            log.append(.started(step: step, task: t, ok: prepared.tryStart(on: executors[ref])))
        case .runAsync(let t, let tokenID, let action):
            let probe = makeProbe("async body of t\(t)")
            let task = backend.runAsync(token: token(tokenID)) { [self] in
                try body(task: t, step: step, input: nil, action: action, token: nil, probe: probe)
            }
            register(t, .int(task))
        default:
            performExtended(operation, at: step)
        }
    }

    private func chain(
        _ t: Int, kind: ContinuationKind, on antecedent: any AsyncTask<Int>, inner: (any AsyncTask<Int>)?,
        executor: any Executor, token: CancellationToken, action: BodyAction, step: Int
    ) -> any AsyncTask<Int> {
        let probe = makeProbe("continuation of t\(t)")
        switch kind {
        case .continueWith:
            return antecedent.continueWith(on: executor, token: token) { [self] completion in
                try body(task: t, step: step, input: Outcome(completion), action: action, token: token, probe: probe)
            }
        case .map:
            return antecedent.map(on: executor, token: token) { [self] value in
                try body(task: t, step: step, input: .success(value), action: action, token: token, probe: probe)
            }
        case .then:
            return antecedent.then(on: executor, token: token) { [self] (value: Int) throws -> Int in
                try body(task: t, step: step, input: .success(value), action: action, token: token, probe: probe)
            }
        case .flatMapExisting:
            let existing = inner ?? backend.cancelled(as: Int.self)
            return antecedent.flatMap(on: executor, token: token) { [self] value in
                _ = try body(task: t, step: step, input: .success(value), action: action, token: token, probe: probe)
                return existing
            }
        case .flatMapNew:
            let backend = self.backend
            let executors = self.executors
            return antecedent.flatMap(on: executor, token: token) { [self] value in
                _ = try body(task: t, step: step, input: .success(value), action: action, token: token, probe: probe)
                return backend.run(on: executors.defaultExecutor, token: .none) { [self] _ in
                    innerBody(task: t, step: step)
                }
            }
        case .recover:
            return antecedent.recover(on: executor, token: token) { [self] error in
                try body(task: t, step: step, input: .failure(ErrorValue(error)), action: action, token: token, probe: probe)
            }
        case .catch:
            return antecedent.catch(on: executor, token: token) { [self] error in
                try body(task: t, step: step, input: .failure(ErrorValue(error)), action: action, token: token, probe: probe)
            }
        case .finally:
            return antecedent.finally(on: executor) { [self] completion in
                _ = try body(task: t, step: step, input: Outcome(completion), action: action, token: token, probe: probe)
            }
        }
    }

    // MARK: - Bodies

    /// Every body: logs its start with the input it saw, checks its producer's payload (C2.2),
    /// spins a little so that overlaps show, then does `action`.
    private func body(
        task t: Int, step: Int, input: Outcome?, action: BodyAction, token: CancellationToken?, probe: Probe
    ) throws -> Int {
        withExtendedLifetime(probe) {}
        log.append(.bodyStart(task: t, inner: false, input: input, counting: ThreadInfo.countingMarker,
                              payloadOK: input.flatMap(checkPayload)))
        defer { log.append(.bodyEnd(task: t, inner: false)) }
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

    private func innerBody(task t: Int, step: Int) -> Int {
        log.append(.bodyStart(task: t, inner: true, input: nil, counting: ThreadInfo.countingMarker, payloadOK: nil))
        defer { log.append(.bodyEnd(task: t, inner: true)) }
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
        let startSteps = Set(program.steps.compactMap { step -> Int? in
            if case .start(let t, _) = step.operation { return t } else { return nil }
        })
        for (t, prepared) in slots.allPrepared().sorted(by: { $0.key < $1.key }) where !startSteps.contains(t) {
            let made = creatingStep(of: t)
            log.append(.started(step: made, task: t, ok: prepared.tryStart()))
        }
        for (index, step) in program.steps.enumerated() {
            guard case .makeSource(let t, let held?) = step.operation, let source = slots.source(ifPresent: t) else { continue }
            payloads.write(index)
            if !source.tryComplete(Self.completion(held, value: ProgramValues.heldValue(step: index))) {
                log.append(.setterTrouble(task: t, detail: "the harness's trySucceed/tryFail/tryCancel on a held source, its only setter, returned false"))
            }
        }
    }

    // MARK: - Helpers

    private func creatingStep(of t: Int) -> Int {
        program.steps.firstIndex { $0.operation.createdTask == t } ?? -1
    }

    private func register(_ id: Int, _ slot: TaskSlot, source: (any CompletionSource<Int>)? = nil) {
        slot.observe(id, log: log, inline: backend.inlineExecutor)
        tasks.withLock { $0.append((id, WeakReference(slot.object))) }
        slots.put(id, slot, source: source)
    }

    func token(_ id: Int?) -> CancellationToken {
        guard let id, let source = slots.token(id) else { return .none }
        return source.token
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

    private func spin(_ iterations: Int) {
        let sink = Atomic(0)
        for i in 0..<iterations { sink.store(i, ordering: .relaxed) }
    }
}

/// What a body captures, so that the harness can tell when the body is released (C8.1).
final class Probe: Sendable {}

/// A weak reference that can cross threads.
final class WeakReference: @unchecked Sendable {
    // @unchecked: `weak var` loads and stores are atomic in Swift's runtime; the object itself
    // is never touched through it, only compared with nil.
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
}
