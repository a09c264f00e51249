import Dispatch
import Foundation
import ScheduleKit
import TaskAPI

/// A backend written the way a user outside this package writes one: it imports TaskAPI only,
/// takes TaskAPI's algorithms (`TaskStateMachine` for each task, `StandardCancellationSource`,
/// `StartGate` through the default `run`, the default combinators, `timeout`, `value` and
/// `runAsync`) and brings its own threads: an elastic worker pool as the default executor, a
/// one-thread pool per serial executor, a per-thread trampoline as the inline executor, and
/// Dispatch timers, each on a serial queue of its own. `PluginTests` checks it with
/// `Conformance.checkAll`, the one call.
final class PluginBackend: TaskBackend {
    let name = "plugin"
    /// C6.4: a job that finds no idle worker gets a new thread, so bodies blocked in `wait()`
    /// never starve the ones they wait for; at most `maxThreads` at once, then jobs queue.
    let defaultExecutor: any AsyncTaskExecutor = WorkerPool(maxThreads: 512, idleTimeout: .seconds(1))
    let inlineExecutor: any AsyncTaskExecutor = InlineExecutor()
    /// Written from the guide against contract 1.3, raised to 1.4 once it passed 1.4's checks (its
    /// combinators are TaskAPI's, which serve tasks of any class; WRITING_A_BACKEND.md, 8a).
    var targetContractVersion: ContractVersion? { .v1_4 }

    func makeSerialExecutor(label: String) -> any AsyncTaskExecutor {
        // One thread at most: jobs run one at a time in FIFO order (C7.2); the thread leaves
        // soon after the queue runs dry, so that many short-lived executors cost no threads.
        WorkerPool(maxThreads: 1, idleTimeout: .milliseconds(20))
    }

    func makeSource<T: Sendable>(of type: T.Type) -> any CompletionSource<T> {
        PluginSource(PluginTask<T>(backend: self))
    }

    func completed<T: Sendable>(_ completion: Completion<T>) -> any AsyncTask<T> {
        PluginTask(backend: self, completed: completion)
    }

    func makeCancellationSource() -> any CancellationSource {
        StandardCancellationSource { [weak self] delay, job in
            self?.schedule(after: delay, job) ?? NoTimer()
        }
    }

    func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable {
        let timer = OneShotTimer(job)
        // Clamped before the multiplication: any delay is valid input (C5.4), and the nanoseconds
        // of one past 2^32 s would overflow.
        let (seconds, attoseconds) = min(max(delay, .zero), .seconds(Int64(1) << 32)).components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        // On a serial queue of its own, which Dispatch backs with a thread at once, not on the
        // global queue: its few threads may be held by bodies other suites block (Linux's
        // libdispatch adds one about every second), and the delay would fire seconds late (C5.4).
        let queue = DispatchQueue(label: "plugin.timer")
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(min(nanoseconds, Int64(Int32.max) * 1_000)))) {
            timer.fire()
        }
        return timer
    }
}

/// A timer's handle: firing or disposing, whichever comes first, releases the job (C8.1).
final class OneShotTimer: Disposable {
    private let job: Locked<(@Sendable () -> Void)?>

    init(_ job: @escaping @Sendable () -> Void) {
        self.job = Locked(job)
    }

    func fire() {
        let job = self.job.withLock { job in
            defer { job = nil }
            return job
        }
        job?()
    }

    func dispose() {
        job.withLock { $0 = nil }
    }
}

/// The handle of a timer that was never set (the backend is gone).
struct NoTimer: Disposable {
    func dispose() {}
}

/// Threads that run jobs: a job goes straight to an idle worker, or to a new thread while there
/// are fewer than `maxThreads`, else it queues. A worker idle for `idleTimeout` ends. With
/// `maxThreads` 1 this is a serial executor: a worker only goes idle once the queue is empty,
/// so jobs run in submission order, one at a time.
final class WorkerPool: AsyncTaskExecutor, SerialExecutor, @unchecked Sendable {
    // @unchecked: every stored var is touched only with `lock` held.
    private final class Worker: @unchecked Sendable {
        let wake = DispatchSemaphore(value: 0)
        /// Set (under the pool's lock) by `execute` when it hands this idle worker a job.
        var job: (@Sendable () -> Void)?
    }

    private let maxThreads: Int
    private let idleTimeout: Duration
    private let lock = NSLock()
    private var idle: [Worker] = []
    private var queue: [(@Sendable () -> Void)?] = []
    private var head = 0
    private var threads = 0

    init(maxThreads: Int, idleTimeout: Duration) {
        self.maxThreads = maxThreads
        self.idleTimeout = idleTimeout
    }

    func execute(_ job: @escaping @Sendable () -> Void) {
        lock.lock()
        if let worker = idle.popLast() {
            worker.job = job
            lock.unlock()
            worker.wake.signal()
        } else if threads < maxThreads {
            threads += 1
            let worker = Worker()
            worker.job = job
            lock.unlock()
            // The job travels in the worker, not in the thread's closure, which lives as long as
            // the thread: a job's captures must go when it ran (C8.1).
            let thread = Thread { [self] in work(worker) }
            thread.stackSize = 1 << 20
            thread.start()
        } else {
            queue.append(job)
            lock.unlock()
        }
    }

    /// `true` on a thread of this pool (C9.7).
    var isCurrent: Bool { CurrentPool.value === self }

    // SerialExecutor (C9.9): Swift jobs are plain jobs of the pool; a one-thread pool is serial.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        execute { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    func isIsolatingCurrentContext() -> Bool? {
        isCurrent
    }

    private func work(_ worker: Worker) {
        CurrentPool.value = self
        var next: (@Sendable () -> Void)? = handedOver(to: worker)
        while next != nil {
            do {
                // Released before the worker waits for more: a job's captures must not outlive
                // it on an idle thread (C8.1).
                let job = next!
                next = nil
                job()
            }
            next = take(worker)
        }
        CurrentPool.value = nil
    }

    /// The next job: queued, or handed over while idle; `nil` when the worker ends.
    private func take(_ worker: Worker) -> (@Sendable () -> Void)? {
        lock.lock()
        if head < queue.count {
            let job = queue[head]
            queue[head] = nil
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            }
            lock.unlock()
            return job
        }
        idle.append(worker)
        lock.unlock()
        let (seconds, attoseconds) = idleTimeout.components
        let timeout = DispatchTime.now() + .nanoseconds(Int(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
        if worker.wake.wait(timeout: timeout) == .timedOut {
            lock.lock()
            if let index = idle.firstIndex(where: { $0 === worker }) {
                idle.remove(at: index)
                threads -= 1
                lock.unlock()
                return nil
            }
            lock.unlock()
            // `execute` took this worker meanwhile; its signal is on the way.
            worker.wake.wait()
        }
        return handedOver(to: worker)
    }

    /// The job `execute` gave `worker`, taken out of it.
    private func handedOver(to worker: Worker) -> (@Sendable () -> Void)? {
        lock.lock()
        defer { lock.unlock() }
        let job = worker.job
        worker.job = nil
        return job
    }
}

/// The pool whose worker is the current thread.
enum CurrentPool {
    private static let key = ThreadLocalKey()

    static var value: WorkerPool? {
        get { key.get() as? WorkerPool }
        set { key.set(newValue) }
    }
}
