import Dispatch
import Foundation
import ScheduleKit
import TaskAPI

#if canImport(Glibc)
import Glibc  // usleep
#endif

/// A small outside backend of docs/WRITING_A_BACKEND.md's shape (the task is its own source on
/// TaskAPI's `TaskStateMachine`, its whole delivery one job of a per-thread trampoline), whose
/// trampoline is slow to get to its next job, as one that logs or measures between jobs is. With
/// `inlineInPlace`, the delivery runs inline continuations itself, as the guide's `MyTask` now
/// does; without, it hands them to the inline executor, which queues them behind the delivery,
/// as the guide's `MyTask` did: a registration made on another thread once the delivery ended
/// then runs in place before them (InlineDeliveryOrderTests).
final class SlowTrampolineBackend: TaskBackend {
    let name = "slow-trampoline"
    let inlineInPlace: Bool
    let defaultExecutor: any AsyncTaskExecutor = LoopDefaultExecutor()
    let inlineExecutor: any AsyncTaskExecutor = SlowInlineExecutor()

    init(inlineInPlace: Bool) { self.inlineInPlace = inlineInPlace }

    func makeSerialExecutor(label: String) -> any AsyncTaskExecutor { LoopQueueExecutor(DispatchQueue(label: label)) }

    func makeSource<T: Sendable>(of type: T.Type) -> any CompletionSource<T> { SlowTrampolineSource<T>(backend: self) }

    func makeCancellationSource() -> any CancellationSource {
        StandardCancellationSource { delay, job in OwnTimers.shared.scheduled(after: delay, job) }
    }

    func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable {
        OwnTimers.shared.scheduled(after: delay, job)
    }
}

final class SlowTrampolineTask<T: Sendable>: AsyncTask, CompletionSource {
    typealias Success = T

    struct Continuation: Sendable {
        let executor: any AsyncTaskExecutor
        let body: @Sendable (Completion<T>) -> Void
    }

    private let owner: SlowTrampolineBackend
    private let state = Locked(TaskStateMachine<T, Continuation>())

    init(backend: SlowTrampolineBackend) { owner = backend }

    deinit {
        let abandoned = state.withLock { $0.abandon() }
        if !abandoned.isEmpty { SlowTrampoline.current.release(abandoned.map { $0 as Any }) }
    }

    var backend: any TaskBackend { owner }
    var task: any AsyncTask<T> { self }
    var status: TaskStatus { state.withLock { $0.status } }
    var completion: Completion<T>? { state.withLock { $0.completion } }

    func tryStart() -> Bool { state.withLock { $0.start() } }

    func tryComplete(_ completion: Completion<T>) -> Bool {
        guard let first = state.withLock({ $0.complete(completion) }) else { return false }
        SlowTrampoline.current.submit { [self] in
            var batch = first
            while true {
                for continuation in batch {
                    if owner.inlineInPlace, continuation.executor === owner.inlineExecutor {
                        continuation.body(completion)
                    } else {
                        continuation.executor.execute { continuation.body(completion) }
                    }
                }
                guard let next = state.withLock({ $0.nextDelivery() }) else { return }
                batch = next
            }
        }
        return true
    }

    func whenComplete(on executor: any AsyncTaskExecutor, _ body: @escaping @Sendable (Completion<T>) -> Void) {
        guard let completion = state.withLock({ $0.register(Continuation(executor: executor, body: body)) }) else { return }
        executor.execute { body(completion) }
    }

    func wait() -> Completion<T> { block(until: .distantFuture) ?? .cancelled }

    func wait(timeout: Duration) -> Completion<T>? {
        block(until: .now() + .nanoseconds(Int(min(MonotonicClock.nanoseconds(timeout), UInt64(Int.max)))))
    }

    private func block(until deadline: DispatchTime) -> Completion<T>? {
        if let completion { return completion }
        let semaphore = DispatchSemaphore(value: 0)
        whenComplete(on: owner.inlineExecutor) { _ in semaphore.signal() }
        _ = semaphore.wait(past: deadline)
        return completion
    }
}

/// Fails its task `abandoned` when released pending (C8.3).
final class SlowTrampolineSource<T: Sendable>: CompletionSource {
    typealias Success = T
    private let base: SlowTrampolineTask<T>

    init(backend: SlowTrampolineBackend) { base = SlowTrampolineTask(backend: backend) }

    deinit { _ = base.tryComplete(.failure(TaskError.abandoned)) }

    var task: any AsyncTask<T> { base }
    func tryComplete(_ completion: Completion<T>) -> Bool { base.tryComplete(completion) }
    func tryStart() -> Bool { base.tryStart() }
}

final class SlowInlineExecutor: AsyncTaskExecutor {
    func execute(_ job: @escaping @Sendable () -> Void) { SlowTrampoline.current.submit(job) }
}

/// A thread's queue of inline work, 300 µs slow to start each queued job: the backend's own
/// slowness (work it does between jobs), which the checks must not take for a broken rule.
final class SlowTrampoline {
    private var jobs: [() -> Void] = []
    private var draining = false
    private var garbage: [Any] = []
    private var releasing = false

    func submit(_ job: @escaping () -> Void) {
        if draining { return jobs.append(job) }
        draining = true
        job()
        while !jobs.isEmpty {
            let batch = jobs
            jobs = []
            for next in batch {
                usleep(300)
                next()
            }
        }
        draining = false
    }

    /// Releases a pending task's continuations one by one (C8.2).
    func release(_ items: [Any]) {
        garbage.append(contentsOf: items)
        if releasing { return }
        releasing = true
        while let next = garbage.popLast() { _ = consume next }
        releasing = false
    }

    /// This thread's, kept in its thread dictionary (released when the thread exits).
    static var current: SlowTrampoline {
        let dictionary = Thread.current.threadDictionary
        if let trampoline = dictionary[key] as? SlowTrampoline { return trampoline }
        let trampoline = SlowTrampoline()
        dictionary[key] = trampoline
        return trampoline
    }

    private static let key = "SlowTrampolineBackend.trampoline"
}
