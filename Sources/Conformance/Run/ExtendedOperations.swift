import Foundation
import TaskAPI

/// The operations that exercise C4.2 (handlers), C4.7 (cancelled awaits), C5.4 (`schedule`),
/// C5.5 (probed combinators) and C6.4 (nested waits): their text and how a driver runs them.
extension Operation {
    var extendedDescription: String {
        switch self {
        case .registerHandler(let h, let k): return "h\(h) = k\(k).register { }"
        case .disposeHandler(let h): return "h\(h).dispose()"
        case .schedule(let us): return "schedule(after: \(us)us)"
        case .nestedWait(let depth): return "run(on: default) { wait() } nested \(depth) deep"
        case .combineProbed(let kind, let inputs, let failing):
            return "\(kind.rawValue)(\(inputs) probed sources)" + (failing.isEmpty ? "" : " failing \(failing)")
        case .awaitThenCancel(let t): return "await t\(t).value, then cancelled"
        case .longChain(let links): return "chain of \(links) maps on inline"
        default: return "?"
        }
    }
}

/// A reference-typed value, so that the harness can tell when a combinator drops it (C5.5).
final class ProbeValue: Sendable {
    let id: Int
    init(_ id: Int) { self.id = id }
}

/// What the extended operations keep during a run: handler registrations and pending timers.
final class ExecutionExtras: Sendable {
    private struct State {
        var registrations: [Int: any Disposable] = [:]
        /// Timers not fired yet, with the uptime (ns) by which they are due.
        var pendingTimers: [Int: UInt64] = [:]
    }

    private let condition = NSCondition()
    // nonisolated(unsafe): read and written only holding `condition`'s lock (`locked`, and
    // `waitForTimers`, whose wait releases it only while it sleeps).
    private nonisolated(unsafe) var state = State()

    func keep(_ registration: any Disposable, handler: Int) { locked { $0.registrations[handler] = registration } }
    func registration(_ handler: Int) -> (any Disposable)? { locked { $0.registrations[handler] } }
    func timerArmed(step: Int, dueBy: UInt64) { locked { $0.pendingTimers[step] = dueBy } }
    func timerFired(step: Int) { locked { $0.pendingTimers[step] = nil } }
    /// When the last timer not fired yet is due (uptime, ns).
    var latestPendingTimer: UInt64? { locked { $0.pendingTimers.values.max() } }

    /// Waits until every timer fired, or `slack` after the last one was due.
    func waitForTimers(slack: Duration) {
        condition.lock()
        defer { condition.unlock() }
        while let due = state.pendingTimers.values.max() {
            let deadline = Double(due) / 1e9 + slack.seconds
            let now = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
            if now >= deadline { return }
            _ = condition.wait(until: Date().addingTimeInterval(deadline - now))
        }
    }

    /// Forgets registrations (the end of a run).
    func clear() { locked { $0.registrations = [:] } }

    private func locked<R>(_ body: (inout State) -> R) -> R {
        condition.lock()
        defer { condition.broadcast(); condition.unlock() }
        return body(&state)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    var nanoseconds: UInt64 { UInt64(max(0, seconds * 1e9)) }
}

extension ProgramExecution {
    func performExtended(_ operation: Operation, at step: Int) {
        switch operation {
        case .registerHandler(let h, let k):
            guard let source = slots.token(k) else { return }
            let log = self.log
            extras.keep(source.register { log.append(.handlerRan(handler: h)) }, handler: h)
        case .disposeHandler(let h):
            extras.registration(h)?.dispose()
        case .schedule(let us):
            let log = self.log, extras = self.extras
            extras.timerArmed(step: step, dueBy: DispatchTime.now().uptimeNanoseconds + UInt64(us) * 1_000)
            _ = backend.schedule(after: .microseconds(us)) {
                log.append(.timerFired(step: step))
                extras.timerFired(step: step)
            }
        case .nestedWait(let depth):
            nestedWait(depth: depth, step: step)
        case .longChain(let links):
            longChain(links: links, step: step)
        case .combineProbed(let kind, let inputs, let failing):
            ProbedCombinator(kind: kind, count: inputs, failing: Set(failing), step: step, execution: self).run()
        case .awaitThenCancel(let t):
            guard let slot = slots.task(t) else { return }
            let log = self.log
            log.awaitStarted(cancelled: true)
            let started = DispatchSemaphore(value: 0)
            let swiftTask = Task.detached(executorPreference: AwaitExecutor.shared) {
                started.signal()
                let result: Result<Outcome, any Error>
                do { result = .success(try await slot.value()) } catch { result = .failure(error) }
                log.append(.awaited(step: step, task: t, result: Outcome(awaiting: result)))
                log.awaitFinished(cancelled: true)
            }
            // Bounded: the Swift task may not get a thread soon on a loaded pool; cancelled either way.
            _ = started.wait(timeout: .now() + .milliseconds(100))
            swiftTask.cancel()
            log.append(.swiftCancelled(step: step))
        default:
            break
        }
    }

    /// `links` maps on the inline executor, run by the completing call on this thread: a loop
    /// keeps every link at about the same stack depth; a recursion goes deeper with each link.
    private func longChain(links: Int, step: Int) {
        let backend = self.backend
        let thread = ThreadInfo.number
        let depths = Locked<[Int: UInt]>([:])
        let source = backend.makeSource(of: Int.self)
        var task: any AsyncTask<Int> = source.task
        for link in 0..<links {
            task = task.map(on: backend.inlineExecutor, token: .none) { value in
                if link == 0 || link == links - 1, ThreadInfo.number == thread {
                    var marker = 0
                    let address = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
                    depths.withLock { $0[link] = address }
                }
                return value + 1
            }
        }
        source.trySucceed(0)
        let result = task.wait(timeout: TimingSlack.current)
        let seen = depths.withLock { $0 }
        var finding: Finding?
        if let first = seen[0], let last = seen[links - 1], first > last, first - last > 64 * 1024 {
            finding = Finding(.c2_7, "step \(step): a chain of \(links) maps on the inline executor recursed",
                              expected: "a loop: every link at about the same stack depth",
                              observed: "the last link \((first - last) / 1024) KiB deeper than the first")
        } else if result?.value != links {
            finding = Finding(.c2_7, "step \(step): a chain of \(links) maps on the inline executor did not complete with \(links)",
                              expected: "success(\(links))", observed: result.map { "\(Outcome($0))" } ?? "not completed in time")
        }
        log.append(.selfCheck(step: step, rule: .c2_7, finding: finding))
    }

    /// Bodies on the default executor, each blocked in `wait()` on the next, `depth` deep: the
    /// whole must complete within 1 s plus the timing slack (C6.4).
    private func nestedWait(depth: Int, step: Int) {
        let backend = self.backend
        // The backend's own default executor, even in controlled mode: the blocked bodies need
        // real threads, which the one controlled thread cannot give them.
        let executor = backend.defaultExecutor
        // Every level's task by the depth left: the body of level r + 1 waits on level r.
        let levels = Locked<[Int: any AsyncTask<Int>]>([:])
        @Sendable func level(_ remaining: Int) -> Int {
            if remaining <= 1 { return 1 }
            let inner = backend.run(on: executor, token: .none) { _ in level(remaining - 1) }
            levels.withLock { $0[remaining - 1] = inner }
            return (inner.wait().value ?? -1_000) + 1
        }
        let start = DispatchTime.now().uptimeNanoseconds
        let top = backend.run(on: executor, token: .none) { _ in level(depth) }
        levels.withLock { $0[depth] = top }
        let limit = Duration.seconds(1) + TimingSlack.current
        let result = top.wait(timeout: limit)
        let elapsed = (DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
        var finding: Finding?
        let tasks = levels.withLock { $0 }
        let lostWakeup = tasks.keys.sorted().first { r in
            tasks[r]?.isCompleted == true && tasks[r + 1].map { !$0.isCompleted } == true
        }
        if result == nil, elapsed < UInt64(limit.seconds * 1_000) {
            finding = Finding(.c6_2, "step \(step): wait(timeout: \(limit)) on \(depth) nested bodies returned nil after \(elapsed) ms",
                              expected: "nil only after the timeout", observed: "nil after \(elapsed) ms")
        } else if result == nil, let lost = lostWakeup {
            // Not a starved pool: a body's wait() on a completed task never returned.
            finding = Finding(.c6_3, "step \(step): level \(depth - lost + 1) of \(depth) bodies nested in wait() completed, but the wait() on it never returned",
                              expected: "wait() returns at completion", observed: "still blocked after \(elapsed) ms")
        } else if result == nil {
            finding = Finding(.c6_4, "step \(step): \(depth) bodies nested in wait() on the default executor did not complete in \(limit)",
                              expected: "done within 1 s (plus slack)", observed: "still blocked after \(elapsed) ms")
        } else if result?.value != depth {
            finding = Finding(.c6_4, "step \(step): \(depth) bodies nested in wait() returned another result",
                              expected: "success(\(depth))", observed: "\(result.map { Outcome($0) }?.description ?? "nil")")
        }
        log.append(.selfCheck(step: step, rule: finding?.rule ?? .c6_4, finding: finding))
    }
}

/// One `combineProbed` step: sources of `ProbeValue`s, completed in reverse order, combined;
/// then checks the outcome (C5.1-C5.3) and, with every other reference dropped, that the
/// completed combinator keeps no input and no value it does not return (C5.5).
private struct ProbedCombinator {
    let kind: CombinatorKind
    let count: Int
    let failing: Set<Int>
    let step: Int
    let execution: ProgramExecution

    func run() {
        let (combined, inputs, values) = combine()
        let rule: Rule = kind == .whenAll ? .c5_1 : kind == .whenAllSettled ? .c5_2 : .c5_3
        let expected = expectedOutcome()
        let start = DispatchTime.now().uptimeNanoseconds
        let observed = outcome(of: combined)
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        var finding: Finding?
        if observed == nil, elapsed < TimingSlack.current.seconds {
            finding = Finding(.c6_2, "step \(step): wait(timeout: \(TimingSlack.current)) on the \(kind.rawValue) returned nil after \(Int(elapsed * 1000)) ms",
                              expected: "nil only after the timeout", observed: "nil after \(Int(elapsed * 1000)) ms")
        } else if observed != expected {
            finding = Finding(rule, "step \(step) (\(kind.rawValue) of \(count) inputs completed last to first) completed with the wrong outcome",
                              expected: expected.description, observed: observed?.description ?? "not completed in time")
        }
        execution.log.append(.selfCheck(step: step, rule: rule, finding: finding))
        guard observed != nil else { return }
        // Values the result itself holds: every one for whenAll (on success) and whenAllSettled,
        // the winner's for race and any.
        var returned: Set<Int> = []
        switch (kind, expected) {
        case (.whenAll, .values), (.whenAllSettled, _): returned = Set(0..<count)
        case (.race, .success(let id)), (.any, .success(let id)): returned = [id]
        default: break
        }
        let watched = inputs.enumerated().map { ("input \($0.offset)", $0.element) }
            + values.enumerated().filter { !returned.contains($0.offset) }.map { ("value of input \($0.offset)", $0.element) }
        let deadline = Date().addingTimeInterval(TimingSlack.current.seconds)
        var alive = watched.filter { $0.1.object != nil }
        while !alive.isEmpty, Date() < deadline {
            usleep(500)
            alive = alive.filter { $0.1.object != nil }
        }
        withExtendedLifetime(combined) {}
        let leak = alive.isEmpty ? nil : Finding(
            .c5_5, "step \(step): the completed \(kind.rawValue) keeps \(alive.count) of its inputs or their values alive",
            expected: "released once it completed", observed: alive.prefix(5).map(\.0).joined(separator: ", "))
        execution.log.append(.selfCheck(step: step, rule: .c5_5, finding: leak))
    }

    /// The combinator, with weak references to its inputs and their values; nothing else keeps them.
    private func combine() -> (AnyObject, [WeakReference], [WeakReference]) {
        let backend = execution.backend
        let sources = (0..<count).map { _ in backend.makeSource(of: ProbeValue.self) }
        let values = (0..<count).map { ProbeValue($0) }
        let tasks = sources.map { $0.task }
        let combined: AnyObject
        switch kind {
        case .whenAll: combined = backend.whenAll(tasks)
        case .whenAllSettled: combined = backend.whenAllSettled(tasks)
        case .race: combined = backend.race(tasks)
        case .any: combined = backend.any(tasks)
        }
        for index in (0..<count).reversed() {
            if failing.contains(index) {
                sources[index].tryFail(ProgramError(1_000 + index))
            } else {
                sources[index].trySucceed(values[index])
            }
        }
        return (combined, tasks.map { WeakReference($0) }, values.map { WeakReference($0) })
    }

    private func outcome(of combined: AnyObject) -> Outcome? {
        let limit = TimingSlack.current
        func probe(_ completion: Completion<ProbeValue>) -> Outcome { Outcome(completion.mapped { $0.id }) }
        if let task = combined as? any AsyncTask<[ProbeValue]> {
            return task.wait(timeout: limit).map { Outcome($0.mapped { $0.map { $0.id } }) }
        }
        if let task = combined as? any AsyncTask<[Completion<ProbeValue>]> {
            return task.wait(timeout: limit).map { completion in
                if case .success(let all) = completion { return .settled(all.map(probe)) }
                return Outcome(completion.mapped { _ in [Int]() })
            }
        }
        if let task = combined as? any AsyncTask<ProbeValue> { return task.wait(timeout: limit).map(probe) }
        return nil
    }

    private func expectedOutcome() -> Outcome {
        func of(_ index: Int) -> Outcome { failing.contains(index) ? .failure(.program(1_000 + index)) : .success(index) }
        let completionOrder = Array((0..<count).reversed())
        switch kind {
        case .whenAll:
            if let first = completionOrder.first(where: failing.contains) { return of(first) }
            return .values(Array(0..<count))
        case .whenAllSettled:
            return .settled((0..<count).map(of))
        case .race:
            guard let first = completionOrder.first else { return .failure(.emptyInput("race")) }
            return of(first)
        case .any:
            if count == 0 { return .failure(.emptyInput("any")) }
            if let first = completionOrder.first(where: { !failing.contains($0) }) { return of(first) }
            return .failure(.aggregate((0..<count).map { .program(1_000 + $0) }))
        }
    }
}

/// How late a timed operation may fire, or a cancelled await return, before the timing checks
/// call it a bug (C4.6, C4.7, C5.4, C6.2, C6.4). Generous: the machine may be loaded.
/// `CONFORMANCE_TIMING_SLACK` (seconds) overrides the default of 2 s, which is 5 times larger
/// under the thread sanitizer.
public enum TimingSlack {
    public static let current: Duration = {
        if let text = ProcessInfo.processInfo.environment["CONFORMANCE_TIMING_SLACK"], let seconds = Double(text), seconds > 0 {
            return .milliseconds(Int64(seconds * 1000))
        }
        return underThreadSanitizer ? .seconds(10) : .seconds(2)
    }()

    /// Whether the process runs under the thread sanitizer (its runtime is linked in).
    public static let underThreadSanitizer: Bool = dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") != nil
}

extension Completion {
    func mapped<U: Sendable>(_ transform: (Success) -> U) -> Completion<U> {
        switch self {
        case .success(let value): return .success(transform(value))
        case .failure(let error): return .failure(error)
        case .cancelled: return .cancelled
        }
    }
}

extension ProgramExecution {
    /// Before a `cancel(after:)`: a handler of the harness's own logs when the token is cancelled.
    func armTimerProbe(on source: any CancellationSource, step: Int, microseconds: Int) {
        let log = self.log, extras = self.extras
        extras.timerArmed(step: step, dueBy: DispatchTime.now().uptimeNanoseconds + UInt64(microseconds) * 1_000)
        extras.keep(source.register {
            log.append(.timerFired(step: step))
            extras.timerFired(step: step)
        }, handler: -1 - step)
    }
}
