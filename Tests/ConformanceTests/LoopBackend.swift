import Dispatch
import Foundation
import ScheduleKit
import TaskAPI

#if canImport(Glibc)
import Glibc
#endif

/// A small outside backend that delivers as a SwiftNIO adapter does (issue 22): every task hands
/// its continuations over from an event loop, later, as a job of that loop, while `wait()` wakes
/// as soon as the task completes. The loop is a thread of its own that takes `latency` to get to
/// each job, as a busy event loop does. Everything else is plain: Dispatch queues and threads, TaskAPI's
/// cancellation source and combinators.
///
/// It is not a conforming backend (its inline executor runs a completed task's continuation
/// later, on the loop, C2.3), and it need not be: `FalseAlarmTests` runs the checks that
/// wrongly failed NIO against it, each of which must pass. With `raceTakesFirstInput`, `race`
/// waits for every input and takes the first one's outcome (a wrong winner, C5.3), as an adapter
/// built on a "when all complete" primitive would; with `keepsTasks`, it keeps every task it
/// makes forever (a real leak, C8.2); with `recursesOnLoop`, a registration on a completed task
/// made on the loop's thread runs its continuation there at once, inside the call (no
/// trampoline: an async loop on the inline executor recurses on the loop's thread until its
/// stack overflows, C2.7); with `timedWaitOversleeps`, `wait(timeout:)` looks at its task only
/// after that long (a waiter woken only once a busy loop lets it go: a lost wake-up, C6.2);
/// with `waitsRefuseWhilePending`, `wait()` and `wait(timeout:)` on a pending task return a
/// failure at once (as an adapter that refuses to block returns an error);
/// with `awaitIgnoresCancellation`, `await task.value` returns only when the task completes, not
/// when the awaiting Swift task is cancelled (C4.7);
/// `targets` is the contract version it declares (`targetContractVersion`).
final class LoopBackend: TaskBackend {
    let name = "loop"
    let loop: EventLoop
    let raceTakesFirstInput: Bool
    let keepsTasks: Bool
    let recursesOnLoop: Bool
    let timedWaitOversleeps: Duration?
    let waitsRefuseWhilePending: Bool
    let awaitIgnoresCancellation: Bool
    let targetContractVersion: ContractVersion?
    private let kept = Locked<[AnyObject]>([])
    /// On threads of the test backends' own (`OwnThreads`): generated programs block bodies in
    /// nested waits here (no C6.4 replacement threads), and on the global queue they would hold
    /// its few threads, which libdispatch on Linux grows by about one a second, stalling every
    /// other suite's jobs and timers on it (docs/CONFORMANCE.md, "Known limits").
    let defaultExecutor: any AsyncTaskExecutor = LoopDefaultExecutor()
    let inlineExecutor: any AsyncTaskExecutor = LoopInlineExecutor()

    init(
        latency: Duration, raceTakesFirstInput: Bool = false, keepsTasks: Bool = false, recursesOnLoop: Bool = false,
        timedWaitOversleeps: Duration? = nil, waitsRefuseWhilePending: Bool = false, awaitIgnoresCancellation: Bool = false,
        targets: ContractVersion? = nil
    ) {
        loop = EventLoop(latency: latency)
        self.raceTakesFirstInput = raceTakesFirstInput
        self.keepsTasks = keepsTasks
        self.recursesOnLoop = recursesOnLoop
        self.timedWaitOversleeps = timedWaitOversleeps
        self.waitsRefuseWhilePending = waitsRefuseWhilePending
        self.awaitIgnoresCancellation = awaitIgnoresCancellation
        targetContractVersion = targets
    }

    func makeSerialExecutor(label: String) -> any AsyncTaskExecutor { LoopQueueExecutor(DispatchQueue(label: label)) }

    func makeSource<T: Sendable>(of type: T.Type) -> any CompletionSource<T> {
        let task = LoopTask<T>(backend: self)
        if keepsTasks { kept.withLock { $0.append(task) } }
        return LoopSource(task)
    }

    func makeCancellationSource() -> any CancellationSource {
        StandardCancellationSource { delay, job in OwnTimers.shared.scheduled(after: delay, job) }
    }

    /// On `OwnTimers`, not on the global queue, whose threads blocked bodies of this or another
    /// suite may hold (C5.4).
    func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable {
        OwnTimers.shared.scheduled(after: delay, job)
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

/// The loop: one thread of the backend's own (named `loop-backend`, as an event loop's is), which
/// runs its jobs in order; each job waits `latency` before it runs (a loop busy with other work),
/// so a delivery comes well after the completion that queued it. Released, the loop runs what is
/// queued and its thread ends.
final class EventLoop: Sendable {
    private let jobs = LoopJobs()
    let latency: Duration

    init(latency: Duration) {
        self.latency = latency
        let jobs = jobs
        Thread { jobs.run(latency: latency) }.start()
    }

    deinit { jobs.close() }

    func submit(_ job: @escaping @Sendable () -> Void) { jobs.submit(job) }

    /// Whether the caller runs on the loop's thread.
    var isCurrent: Bool { jobs.isCurrentThread }
}

/// The loop's queue of jobs and its thread.
private final class LoopJobs: @unchecked Sendable {
    // @unchecked Sendable: every stored property is read and written with `condition` held.
    private let condition = NSCondition()
    private var queue: [@Sendable () -> Void] = []
    private var closed = false
    private var thread: pthread_t?

    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        queue.append(job)
        condition.signal()
        condition.unlock()
    }

    func close() {
        condition.lock()
        closed = true
        condition.signal()
        condition.unlock()
    }

    var isCurrentThread: Bool {
        condition.lock()
        defer { condition.unlock() }
        return thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    /// The loop's thread: each job in order, until closed and drained. Jobs are taken a batch at
    /// a time and run, and released, with the lock free: releasing a job may free a source whose
    /// deinit completes a task, which submits to this loop.
    func run(latency: Duration) {
        // Foundation's `Thread.name` does not name the system thread on Linux (and a new thread
        // takes its creator's name); a crash report reads the system's name, which a thread may
        // set by writing its own `comm`.
        #if canImport(Glibc)
        let file = Glibc.open("/proc/thread-self/comm", O_WRONLY)
        if file >= 0 {
            _ = Glibc.write(file, "loop-backend", 12)
            _ = Glibc.close(file)
        }
        #endif
        condition.lock()
        thread = pthread_self()
        condition.unlock()
        while let batch = nextBatch() {
            for job in batch {
                if latency > .zero { Thread.sleep(forTimeInterval: latency.inSeconds) }
                job()
            }
        }
    }

    /// The jobs queued so far, once there are some; nil once closed and drained.
    private func nextBatch() -> [@Sendable () -> Void]? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty, !closed { condition.wait() }
        guard !queue.isEmpty else { return nil }
        defer { queue = [] }
        return queue
    }
}

/// A task whose continuations the loop hands over: a completion's in one job, a registration on
/// a completed task in one of its own, queued in the order of the calls (both queue under the
/// task's lock), so registration order holds (C2.4).
final class LoopTask<T: Sendable>: AsyncTask {
    typealias Success = T
    private typealias Continuation = (executor: any AsyncTaskExecutor, body: @Sendable (Completion<T>) -> Void)
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

    func whenComplete(on executor: any AsyncTaskExecutor, _ body: @escaping @Sendable (Completion<T>) -> Void) {
        let inPlace: Completion<T>? = state.withLock { state in
            guard let completion = state.completion else {
                state.continuations.append((executor, body))
                return nil
            }
            if owner.recursesOnLoop, owner.loop.isCurrent { return completion }
            owner.loop.submit { Self.hand((executor, body), completion) }
            return nil
        }
        if let inPlace { Self.hand((executor, body), inPlace) }
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

    /// As TaskAPI's default: resumed by the completion or by the Swift task's cancellation,
    /// whichever comes first; with `awaitIgnoresCancellation`, by the completion only.
    var value: T {
        get async throws {
            if let completion { return try completion.get() }
            let resumer = ReferenceResumer<T>()  // the reference backend's: one resume, either way first
            let ignoresCancellation = owner.awaitIgnoresCancellation
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    resumer.install(continuation)
                    whenComplete(on: owner.inlineExecutor) { resumer.resume(with: $0) }
                }
            } onCancel: {
                if !ignoresCancellation { resumer.resume(with: .cancelled) }
            }
        }
    }

    func wait() -> Completion<T> {
        if owner.waitsRefuseWhilePending, completion == nil { return .failure(LoopWaitRefused()) }
        completed.lock()
        defer { completed.unlock() }
        while true {
            if let completion { return completion }
            completed.wait()
        }
    }

    func wait(timeout: Duration) -> Completion<T>? {
        if owner.waitsRefuseWhilePending, completion == nil { return .failure(LoopWaitRefused()) }
        if let oversleep = owner.timedWaitOversleeps { Thread.sleep(forTimeInterval: min(oversleep, timeout).inSeconds) }
        let deadline = Date(timeIntervalSinceNow: timeout.inSeconds)
        completed.lock()
        defer { completed.unlock() }
        while completion == nil, completed.wait(until: deadline) {}
        return completion
    }
}

/// What a refused wait fails with (`waitsRefuseWhilePending`).
struct LoopWaitRefused: Error {}

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
final class LoopInlineExecutor: AsyncTaskExecutor {
    func execute(_ job: @escaping @Sendable () -> Void) { job() }
}

/// Runs each job on a thread of `OwnThreads`: an idle one or a new one, so a job never waits for
/// a blocked one to return (the global queue's pool, a few threads per processor, would make it).
final class LoopDefaultExecutor: AsyncTaskExecutor {
    func execute(_ job: @escaping @Sendable () -> Void) { OwnThreads.shared.execute(job) }
}

final class LoopQueueExecutor: AsyncTaskExecutor {
    let queue: DispatchQueue
    init(_ queue: DispatchQueue) { self.queue = queue }
    func execute(_ job: @escaping @Sendable () -> Void) { queue.async(execute: job) }
}

extension OwnTimers {
    /// `job` after `delay` unless disposed first; disposing releases it (C8.2, the backend's
    /// `schedule(after:_:)`), as NIO's `Scheduled.cancel()` does. A cancelled `DispatchWorkItem`
    /// would keep its block until its deadline (issue 28's freed-or-not check found that here).
    func scheduled(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable {
        let timer = LoopTimer(job)
        after(delay) { timer.fire() }
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
