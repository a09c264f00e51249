import BackendKit
import Dispatch
import Foundation
import ScheduleKit
import TaskAPI

/// A backend built on BackendKit, as docs/WRITING_A_BACKEND.md shows it: `KitBackend`'s defaults
/// give it the kit's tasks, sources, inline executor and cancellation source; it writes its own
/// executors and timer. A thread per default-executor job keeps it
/// short and keeps C6.4 (a blocked body never holds up others); a real backend pools threads.
public final class QueueBackend: KitBackend {
    public let name = "queues"
    private let threads = ThreadPerJobExecutor()

    public init() {}

    public var defaultExecutor: any AsyncTaskExecutor { threads }

    public func makeSerialExecutor(label: String) -> any AsyncTaskExecutor {
        QueueExecutor(DispatchQueue(label: label))
    }

    public func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable {
        let timer = OneShotTimer(job)
        let nanoseconds = Int(min(MonotonicClock.nanoseconds(delay), UInt64(Int.max)))
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { timer.fire() }
        return timer
    }
}

/// The default executor: every job on a new thread, marked as this executor's (C9.7).
final class ThreadPerJobExecutor: AsyncTaskExecutor {
    func execute(_ job: @escaping @Sendable () -> Void) {
        let id = ObjectIdentifier(self)
        Thread {
            Thread.current.threadDictionary["executor"] = id
            job()
        }.start()
    }

    var isCurrent: Bool { Thread.current.threadDictionary["executor"] as? ObjectIdentifier == ObjectIdentifier(self) }
}

/// A serial executor: a serial Dispatch queue, marked as this executor's (C9.7).
final class QueueExecutor: AsyncTaskExecutor {
    let queue: DispatchQueue
    private let key = DispatchSpecificKey<ObjectIdentifier>()

    init(_ queue: DispatchQueue) {
        self.queue = queue
        queue.setSpecific(key: key, value: ObjectIdentifier(self))
    }

    func execute(_ job: @escaping @Sendable () -> Void) {
        queue.async(execute: job)
    }

    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == ObjectIdentifier(self) }
}

/// A timer's handle: firing or disposing, whichever comes first, releases the job (C8.2). (A
/// cancelled `DispatchWorkItem` would keep its job until the deadline.)
final class OneShotTimer: Disposable {
    private let job: Locked<(@Sendable () -> Void)?>

    init(_ job: @escaping @Sendable () -> Void) {
        self.job = Locked(job)
    }

    func fire() {
        job.withLock { job in
            defer { job = nil }
            return job
        }?()
    }

    func dispose() {
        job.withLock { $0 = nil }
    }
}
