import Foundation
import Synchronization

/// One thing that happened during a run, stamped from one global atomic sequence counter.
public struct Event: Sendable {
    public let seq: UInt64
    /// `ThreadInfo.number` of the thread that logged it.
    public let thread: Int
    /// 1 + driver index if logged on a driver thread (the harness is driver `drivers`), else 0.
    public let driver: Int
    /// Monotonic time in nanoseconds, for the timing rules (C5.4).
    public let uptime: UInt64
    public let kind: EventKind
    /// Logged by a thread under a controlled run's control (`ThreadInfo.underControl`).
    let underControl: Bool
}

extension Event: CustomStringConvertible {
    public var description: String {
        "#\(seq) \(driver > 0 ? "d\(driver - 1)" : "--") thread\(thread) \(kind)"
    }

    /// The event without its thread and time: what a controlled replay must reproduce exactly.
    public var replayDescription: String {
        "#\(seq) \(driver > 0 ? "d\(driver - 1)" : "--") \(kind)"
    }
}

public enum EventKind: Sendable {
    case stepStart(step: Int)
    case stepEnd(step: Int)
    /// A setter call returned: `won` is its `Bool` (try setters) or "did not throw".
    case setter(step: Int, source: Int, won: Bool, threw: ErrorValue?)
    /// A body started. `inner`: the body of a `flatMap->new`'s inner task. `payloadOK`: the data
    /// its producer wrote before completing was visible (C2.2), `nil` when there was none.
    /// `inside`: what it read first, its task's own `status` (nil: the body cannot reach its task
    /// yet) and its executor's `isCurrent` (nil: not asked) (C1.5, C9.7).
    case bodyStart(task: Int, inner: Bool, input: Outcome?, counting: Int, payloadOK: Bool?, inside: BodyReads)
    case bodyEnd(task: Int, inner: Bool)
    /// A body's `checkpoint()` is about to read its token: a cancellation logged before this
    /// was requested before the read (C4.4). The result, `checkpoint`, is logged after the read,
    /// and a cancellation may come in between.
    case checkpointBegan(task: Int)
    case checkpoint(task: Int, threw: Bool)
    /// The harness's observer saw `task` complete.
    case completed(task: Int, outcome: Outcome)
    /// `wait()` or `wait(timeout:)` returned (`nil`: timed out).
    case waited(step: Int, task: Int, result: Outcome?)
    case awaited(step: Int, task: Int, result: Outcome)
    /// `status` read by a driver right after its wait returned (C1.5).
    case status(step: Int, task: Int, status: String)
    /// A setter of the harness itself threw or lost (bad input from the backend).
    case setterTrouble(task: Int, detail: String)
    /// The job of a `submit` step ran (C7.3).
    case jobRan(step: Int)
    /// A start of prepared task `task` returned `ok` (step: the `start` step, or the `prepare`
    /// step for the harness's own start after the drivers).
    case started(step: Int, task: Int, ok: Bool)
    /// User handler `h<handler>` ran (C4.2).
    case handlerRan(handler: Int)
    /// The timer of step `step` fired: a `schedule` job, or a `cancel(after:)` token's cancellation.
    case timerFired(step: Int)
    /// The driver of step `step` cancelled the Swift task awaiting (C4.7).
    case swiftCancelled(step: Int)
    /// A `longChain` step's chain ran: how much deeper (bytes) its first link ran than its last
    /// (nil: not both on the completing thread), and its outcome (nil: not in time) (C2.7).
    case longChainRan(step: Int, stackGrowth: Int?, result: Outcome?)
    /// A `nestedWait` step's wait returned after `elapsed` with `result` (nil: timed out);
    /// `lostWakeupLevel`: the first level that completed while the level waiting on it had not;
    /// `nestDone`: when the outermost body returned, after the step began (nil: not by then)
    /// (C6.2, C6.3, C6.4).
    case nestedWaitReturned(step: Int, elapsed: Duration, result: Outcome?, lostWakeupLevel: Int?, nestDone: Duration?)
    /// A `combineProbed` step's combinator completed with `result` (nil: not within the slack) (C5.1-C5.3).
    case probedCombined(step: Int, result: Outcome?)
    /// Once it completed and every other reference was dropped: the inputs and values not
    /// returned that it still kept after the slack (C5.5).
    case probedRetained(step: Int, alive: [String])
    /// A hosted step's call (`CallHost`) started and ended, inside its continuation or job.
    case hostStart(step: Int)
    case hostEnd(step: Int)
    /// An `inspect` step read `status`, `completion`, `isCompleted` and `backend.name`, in that
    /// order, and `backend.mainExecutor.isCurrent` (C1.1, C1.5, C9.7).
    case inspected(step: Int, task: Int, status: String, completion: Outcome?, isCompleted: Bool, backend: String, mainIsCurrent: Bool)
    /// The same step on a prepared task: `isStarted` and its token's `isCancellationRequested` (C9.3).
    case preparedInspected(step: Int, task: Int, isStarted: Bool, tokenCancelled: Bool, backend: String)
    /// A token inspection: the source's and its token's `isCancellationRequested`, the token's
    /// `canBeCancelled`, and whether `CancellationToken.none` says it can never be cancelled (C4.1).
    case tokenInspected(step: Int, token: Int, sourceRequested: Bool, tokenRequested: Bool, canBeCancelled: Bool, noneIsInert: Bool)
    /// `tryStart()` on the source of `task` returned `ok` (C1.5).
    case sourceStarted(step: Int, task: Int, ok: Bool)
    /// Attempt `attempt` of the retry that makes `task` started or ended (C9.4).
    case retryAttempt(task: Int, attempt: Int, end: Bool)
    /// A factory step's `TaskFactory` holds the backend, executor and token it was given (C9.2).
    case factoryMade(step: Int, backendOK: Bool, executorOK: Bool, tokenOK: Bool)
    /// An async loop's last step ran: how much deeper (bytes) its last step ran than its first
    /// (nil: not both on the driver's thread), and its outcome (nil: not in time) (C2.7).
    case asyncLoopRan(step: Int, stackGrowth: Int?, result: Outcome?)
    /// The harness's own `wait(timeout:)` in step `step` (`ProgramExecution.boundedWait`) returned
    /// nil `elapsed` nanoseconds after the call, before its `limit` (C6.2).
    case waitReturnedEarly(step: Int, limit: UInt64, elapsed: UInt64)
    /// A `raceRounds` step ran `rounds` rounds; `loss`: the one that went wrong (the last run).
    case raceRoundsRan(step: Int, rounds: Int, loss: ProgramOperation.RaceRounds.Loss?)
    /// Job `index` of a burst of jobs on one serial executor ran (C7.2, C7.3).
    case burstJobRan(step: Int, index: Int)
    /// A `serialHandOff` step's first job ended its wait: whether the wait saw the second job
    /// complete, and whether the second job had run by the first job's end (either: C7.2).
    case serialHandOffReturned(step: Int, waited: Bool, secondRan: Bool)
    /// The pinned-actor form of step `step` fell back to its executor: the backend made no actor
    /// executor for it (or a controlled run wraps it), so the form was not called (C9.10).
    case pinnedUnavailable(step: Int)
    /// Source `task` records where it was made (`SourceOriginRecording`): if released pending, its
    /// abandoned error must name `expected` (nil: nothing) (C8.3).
    case sourceOrigin(task: Int, expected: String?)
    /// The harness's observer saw `task` fail `TaskError.abandoned` naming `origin` (C8.3).
    case abandonedOrigin(task: Int, origin: String?)
    /// A join to the group of task `group` returned, and its `pendingCount` read after it (C9.11).
    case groupJoined(step: Int, group: Int, task: Int, pending: Int)
    /// A group's `wait()` (`idle`: true) or `wait(timeout:)` returned (C9.11).
    case groupWaited(step: Int, group: Int, idle: Bool)
}

/// What a body reads first: its task's own `status` (nil: it cannot reach its task yet) and its
/// executor's `isCurrent` (nil: not asked) (C1.5, C9.7).
public struct BodyReads: Sendable, Hashable {
    public let status: String?
    public let isCurrent: Bool?
}

/// The event log of one run, and the completion counts the harness waits on.
public final class EventLog: Sendable {
    private let counter = Atomic<UInt64>(0)
    private struct State {
        var events: [Event] = []
        var completed: [Bool]
        var completionCount = 0
        var bodiesRunning = 0
        var awaitsRunning = 0
        var cancelledAwaitsRunning = 0
        /// Hosted calls and burst jobs handed over and not yet run.
        var pendingCalls = 0
        /// Bumped by every completion, body end and await end: what phase one waits on.
        var progress = 0
        /// When the run last made progress of any kind: an event, an await or call counted, or a
        /// step's own mark (`markProgress()`). What a stress phase's watchdog measures from
        /// (`PhaseWatch`).
        var lastActivity = Uptime.now
    }

    // NSCondition is a lock with a condition variable; every access to `state` holds it.
    private let condition = NSCondition()
    private nonisolated(unsafe) var state: State
    /// Each event's time: the monotonic clock, or a seated run's own (`RunClock`).
    private let stamp: @Sendable () -> UInt64
    /// Whether the calling thread acts for the run's schedule (`Event.underControl`).
    private let controlled: @Sendable () -> Bool

    init(
        taskCount: Int, stamp: @escaping @Sendable () -> UInt64 = { Uptime.now.nanoseconds },
        controlled: @escaping @Sendable () -> Bool = { ThreadInfo.underControl }
    ) {
        state = State(completed: Array(repeating: false, count: taskCount))
        self.stamp = stamp
        self.controlled = controlled
    }

    func append(_ kind: EventKind) {
        let seq = counter.add(1, ordering: .sequentiallyConsistent).oldValue
        let event = Event(
            seq: seq, thread: ThreadInfo.number, driver: ThreadInfo.driverMarker,
            uptime: stamp(), kind: kind, underControl: controlled())
        let now = Uptime.now
        condition.lock()
        state.events.append(event)
        state.lastActivity = max(state.lastActivity, now)
        var notify = false
        switch kind {
        case .completed(let task, _):
            if task < state.completed.count, !state.completed[task] {
                state.completed[task] = true
                state.completionCount += 1
            }
            notify = true
        case .bodyStart: state.bodiesRunning += 1
        case .bodyEnd: state.bodiesRunning -= 1; notify = true
        case .hostEnd, .burstJobRan: state.pendingCalls -= 1; notify = true
        default: break
        }
        if notify {
            state.progress += 1
            condition.broadcast()
        }
        condition.unlock()
    }

    func awaitStarted(cancelled: Bool) {
        mutate {
            $0.awaitsRunning += 1; if cancelled { $0.cancelledAwaitsRunning += 1 }
        }
    }

    /// A hosted call was registered, or a burst's job handed over: the run is not quiescent
    /// until it ran (`hostEnd`, `burstJobRan`).
    func callPending() {
        mutate { $0.pendingCalls += 1 }
    }

    func awaitFinished(cancelled: Bool) {
        mutate {
            $0.awaitsRunning -= 1; if cancelled { $0.cancelledAwaitsRunning -= 1 }
        }
    }

    /// The events so far, in sequence order.
    var events: [Event] { read { $0.events.sorted { $0.seq < $1.seq } } }

    /// The tasks whose completion was observed so far.
    var completedTasks: [Bool] { read(\.completed) }

    /// What is still running, for the watchdog: bodies and awaits.
    var runningSummary: String {
        read { state in
            var parts: [String] = []
            if state.bodiesRunning > 0 { parts.append("\(state.bodiesRunning) bodies still running") }
            if state.awaitsRunning > 0 { parts.append("\(state.awaitsRunning) awaits not resumed (C6.5)") }
            if state.pendingCalls > 0 { parts.append("\(state.pendingCalls) hosted calls or burst jobs never ran (lost: C2.1, C7.3)") }
            return parts.joined(separator: ", ")
        }
    }

    /// The awaits started and not resumed yet.
    var awaitsNotResumed: Int { read(\.awaitsRunning) }

    /// A counter that grows with every completion, body end and await end.
    var progress: Int { read(\.progress) }

    /// When the run last made progress of any kind (an event, a counted await or call, a mark).
    var lastActivity: Uptime { read(\.lastActivity) }

    /// A step still under way made progress that logs no event (a `RaceRounds` round, a driver
    /// thread that used CPU time, `DriverCPUClocks`): the watchdog measures from it as from an
    /// event. Adds no event, so a program's text, its
    /// checks and its replays stay the same.
    func markProgress() {
        let now = Uptime.now
        condition.lock()
        state.lastActivity = max(state.lastActivity, now)
        condition.unlock()
    }

    /// `true` if `tasks` all completed and no cancelled await runs (unless `ignoringAwaits`:
    /// their time is up, and the timing checks report them, C4.7).
    func phaseOneDone(tasks: [Int], ignoringAwaits: Bool = false) -> Bool {
        read { state in
            (ignoringAwaits || state.cancelledAwaitsRunning == 0)
                && tasks.allSatisfy { $0 >= state.completed.count || state.completed[$0] }
        }
    }

    /// Waits until `progress` moves past `seen`; `false` at the deadline.
    func waitForProgress(after seen: Int, deadline: Uptime) -> Bool {
        waitUntil(deadline) { $0.progress > seen }
    }

    /// Waits until every task completed, and no body nor await is running; `false` at the deadline.
    func waitForQuiescence(deadline: Uptime) -> Bool {
        waitUntil(deadline) { state in
            state.completionCount == state.completed.count && state.bodiesRunning == 0 && state.awaitsRunning == 0
                && state.pendingCalls <= 0
        }
    }

    /// `reading` of the state, holding the lock.
    private func read<T>(_ reading: (State) -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return reading(state)
    }

    private func waitUntil(_ deadline: Uptime, _ predicate: (State) -> Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !predicate(state) {
            if !condition.wait(until: deadline) { return predicate(state) }
        }
        return true
    }

    private func mutate(_ body: (inout State) -> Void) {
        let now = Uptime.now
        condition.lock()
        body(&state)
        state.lastActivity = max(state.lastActivity, now)
        state.progress += 1
        condition.broadcast()
        condition.unlock()
    }
}

/// Plain memory a producer writes before completing and a consumer reads when it sees the
/// producer's value: visible only if completion happens-before the continuation (C2.2).
final class Payloads: @unchecked Sendable {
    // @unchecked: slot `k` is written once, by producer `k`, before it completes a task, and
    // read only by continuations that saw that completion. A backend that keeps C2.2 orders the
    // two accesses; one that does not is exactly what this check (and TSan) must expose.
    private let slots: UnsafeMutablePointer<Int>
    private let count: Int

    init(count: Int) {
        self.count = max(count, 1)
        slots = UnsafeMutablePointer<Int>.allocate(capacity: self.count)
        slots.initialize(repeating: 0, count: self.count)
    }

    deinit {
        slots.deallocate()
    }

    func write(_ key: Int) {
        guard key >= 0, key < count else { return }
        slots[key] = key &* 7919 &+ 1
    }

    func check(_ key: Int) -> Bool {
        guard key >= 0, key < count else { return true }
        return slots[key] == key &* 7919 &+ 1
    }
}
