import Dispatch
import Foundation
import ScheduleKit
import TaskAPI

/// A small outside backend that delivers as a SwiftNIO adapter does (issue 22): every task hands
/// its continuations over from an event loop, later, as a job of that loop, while `wait()` wakes
/// as soon as the task completes. The loop is a serial queue that takes `latency` to get to each
/// job, as a busy event loop does. Everything else is plain: Dispatch queues, TaskAPI's
/// cancellation source and combinators.
///
/// It is not a conforming backend (its inline executor runs a completed task's continuation
/// later, on the loop, C2.3), and it need not be: `FalseAlarmTests` runs the checks that
/// wrongly failed NIO against it, each of which must pass. With `raceTakesFirstInput`, `race`
/// waits for every input and takes the first one's outcome (a wrong winner, C5.3), as an adapter
/// built on a "when all complete" primitive would; with `keepsTasks`, it keeps every task it
/// makes forever (a real leak, C8.2).
final class LoopBackend: TaskBackend {
    let name = "loop"
    let loop: EventLoop
    let raceTakesFirstInput: Bool
    let keepsTasks: Bool
    private let kept = Locked<[AnyObject]>([])
    let defaultExecutor: any Executor = LoopQueueExecutor(.global())
    let inlineExecutor: any Executor = LoopInlineExecutor()

    init(latency: Duration, raceTakesFirstInput: Bool = false, keepsTasks: Bool = false) {
        loop = EventLoop(latency: latency)
        self.raceTakesFirstInput = raceTakesFirstInput
        self.keepsTasks = keepsTasks
    }

    func makeSerialExecutor(label: String) -> any Executor { LoopQueueExecutor(DispatchQueue(label: label)) }

    func makeSource<T: Sendable>(of type: T.Type) -> any CompletionSource<T> {
        let task = LoopTask<T>(backend: self)
        if keepsTasks { kept.withLock { $0.append(task) } }
        return LoopSource(task)
    }

    func makeCancellationSource() -> any CancellationSource {
        StandardCancellationSource { delay, job in DispatchQueue.global().scheduled(after: delay, job) }
    }

    func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable {
        DispatchQueue.global().scheduled(after: delay, job)
    }

    func race<T: Sendable>(_ tasks: [any AsyncTask<T>]) -> any AsyncTask<T> {
        guard raceTakesFirstInput, !tasks.isEmpty else { return firstOutcome(of: tasks) }
        return whenAllSettled(tasks).continueWith(on: inlineExecutor, token: .none) { settled in
            switch try settled.get()[0] {
            case .success(let value): return value
            case .failure(let error): throw error
            case .cancelled: throw CancellationError()
            }
        }
    }

    /// TaskAPI's own `race`, which the override above replaces.
    private func firstOutcome<T: Sendable>(of tasks: [any AsyncTask<T>]) -> any AsyncTask<T> {
        guard !tasks.isEmpty else { return failed(TaskError.emptyInput("race")) }
        let source = makeSource(of: T.self)
        for task in tasks { task.whenComplete(on: inlineExecutor) { source.tryComplete($0) } }
        return source.task
    }
}

/// The loop: one serial queue; each job waits `latency` before it runs (a loop busy with other
/// work), so a delivery comes well after the completion that queued it.
final class EventLoop: Sendable {
    private let queue = DispatchQueue(label: "loop-backend.event-loop")
    let latency: Duration

    init(latency: Duration) { self.latency = latency }

    func submit(_ job: @escaping @Sendable () -> Void) {
        let latency = latency
        queue.async {
            if latency > .zero { Thread.sleep(forTimeInterval: latency.inSeconds) }
            job()
        }
    }
}

/// A task whose continuations the loop hands over: a completion's in one job, a registration on
/// a completed task in one of its own, queued in the order of the calls (both queue under the
/// task's lock), so registration order holds (C2.4).
final class LoopTask<T: Sendable>: AsyncTask {
    typealias Success = T
    private typealias Continuation = (executor: any Executor, body: @Sendable (Completion<T>) -> Void)
    private struct State {
        var completion: Completion<T>?
        var started = false
        var continuations: [Continuation] = []
    }

    let owner: LoopBackend
    private let state = Locked(State())
    private let completed = NSCondition()

    init(backend: LoopBackend) { owner = backend }

    var backend: any TaskBackend { owner }
    var completion: Completion<T>? { state.withLock { $0.completion } }
    var status: TaskStatus {
        state.withLock { $0.completion != nil ? .completed : $0.started ? .running : .pending }
    }

    func start() -> Bool {
        state.withLock { state in
            guard state.completion == nil, !state.started else { return false }
            state.started = true
            return true
        }
    }

    func complete(_ completion: Completion<T>) -> Bool {
        let won: Bool = state.withLock { state in
            guard state.completion == nil else { return false }
            state.completion = completion
            let list = state.continuations
            state.continuations = []
            owner.loop.submit { for continuation in list { Self.hand(continuation, completion) } }
            return true
        }
        guard won else { return false }
        completed.lock()
        completed.broadcast()
        completed.unlock()
        return true
    }

    func whenComplete(on executor: any Executor, _ body: @escaping @Sendable (Completion<T>) -> Void) {
        state.withLock { state in
            guard let completion = state.completion else { return state.continuations.append((executor, body)) }
            owner.loop.submit { Self.hand((executor, body), completion) }
        }
    }

    /// On the loop: inline continuations run there, the others go to their executor.
    private static func hand(_ continuation: Continuation, _ completion: Completion<T>) {
        let body = continuation.body
        if continuation.executor is LoopInlineExecutor {
            body(completion)
        } else {
            continuation.executor.execute { body(completion) }
        }
    }

    func wait() -> Completion<T> {
        completed.lock()
        defer { completed.unlock() }
        while true {
            if let completion { return completion }
            completed.wait()
        }
    }

    func wait(timeout: Duration) -> Completion<T>? {
        let deadline = Date(timeIntervalSinceNow: timeout.inSeconds)
        completed.lock()
        defer { completed.unlock() }
        while completion == nil, completed.wait(until: deadline) {}
        return completion
    }
}

/// The writing side; released while its task is pending, it fails the task `abandoned` (C8.3).
final class LoopSource<T: Sendable>: CompletionSource {
    typealias Success = T
    private let base: LoopTask<T>

    init(_ task: LoopTask<T>) { base = task }

    deinit { _ = base.complete(.failure(TaskError.abandoned)) }

    var task: any AsyncTask<T> { base }

    @discardableResult
    func tryComplete(_ completion: Completion<T>) -> Bool { base.complete(completion) }

    @discardableResult
    func tryStart() -> Bool { base.start() }
}

/// Runs a job at once when called; a task's delivery runs its inline continuations on the loop.
final class LoopInlineExecutor: Executor {
    func execute(_ job: @escaping @Sendable () -> Void) { job() }
}

final class LoopQueueExecutor: Executor {
    let queue: DispatchQueue
    init(_ queue: DispatchQueue) { self.queue = queue }
    func execute(_ job: @escaping @Sendable () -> Void) { queue.async(execute: job) }
}

extension DispatchQueue {
    /// `job` after `delay` unless disposed first; disposing releases it (C8.2, the backend's
    /// `schedule(after:_:)`), as NIO's `Scheduled.cancel()` does. A cancelled `DispatchWorkItem`
    /// would keep its block until its deadline (issue 28's freed-or-not check found that here).
    func scheduled(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable {
        let timer = LoopTimer(job)
        asyncAfter(deadline: .now() + .nanoseconds(Int(min(max(0, delay.inSeconds), 1e6) * 1e9))) { timer.fire() }
        return timer
    }
}

/// A one-shot timer whose job is released by firing or disposing, whichever comes first.
final class LoopTimer: Disposable {
    private let job: Locked<(@Sendable () -> Void)?>
    init(_ job: @escaping @Sendable () -> Void) { self.job = Locked(job) }
    func fire() {
        job.withLock { job in
            defer { job = nil }
            return job
        }?()
    }
    func dispose() { job.withLock { $0 = nil } }
}

extension Duration {
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
