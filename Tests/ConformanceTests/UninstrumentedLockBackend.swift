import BackendThreads
import Dispatch
import Foundation
import ScheduleKit
import Synchronization
import TaskAPI

/// A test-only instrumented backend (the threads backend underneath) with a synchronization of its
/// own that ScheduleKit's primitives do not see, for `SeatBlockedOutsideTests`.
///
/// `.lockAcrossAPoint`: `makeSource` takes a registry lock of its own (an `NSLock`) and, holding
/// it, waits a millisecond on a ScheduleKit `Latch` that nothing opens. On seats that wait is a
/// schedule point that blocks the seat until the run's clock moves (only once no seat can go on),
/// so the baton goes to the other driver, whose `makeSource` then blocks natively on the `NSLock`
/// and reaches no schedule point: a deadlock of the harness's serializing, in every schedule.
/// Natively the wait times out, the lock is released, and every call returns.
///
/// `.deadlocks`: the second `makeSource` waits on a semaphore nothing signals until `unblock()`:
/// a backend that truly deadlocks outside the primitives.
///
/// With `jobs`, its default and serial executors are `SlowExecutor`s: a backend slow but correct
/// (or, with `SlowJobs.dropsAfter`, one that stops making progress at a known moment) once its
/// run went on natively.
final class UninstrumentedLockBackend: TaskBackend {
    enum Behavior { case lockAcrossAPoint, deadlocks }

    let behavior: Behavior
    private let base = ThreadsBackend()
    private let registry = NSLock()
    private let stuck = DispatchSemaphore(value: 0)
    private let calls = Atomic<Int>(0)
    /// How many `makeSource` calls found the registry lock taken (and blocked on it).
    let contended = Atomic<Int>(0)

    private let jobs: SlowJobs?
    let defaultExecutor: any AsyncTaskExecutor

    init(_ behavior: Behavior, jobs: SlowJobs? = nil) {
        self.behavior = behavior
        self.jobs = jobs
        if let jobs {
            defaultExecutor = SlowExecutor(base.defaultExecutor, jobs: jobs)
        } else {
            defaultExecutor = base.defaultExecutor
        }
    }

    var name: String { "uninstrumented-lock" }
    var isScheduleInstrumented: Bool { true }
    var inlineExecutor: any AsyncTaskExecutor { base.inlineExecutor }
    func makeSerialExecutor(label: String) -> any AsyncTaskExecutor {
        let executor = base.makeSerialExecutor(label: label)
        return jobs.map { SlowExecutor(executor, jobs: $0) } ?? executor
    }
    func makeCancellationSource() -> any CancellationSource { base.makeCancellationSource() }
    func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable { base.schedule(after: delay, job) }

    func makeSource<T: Sendable>(of type: T.Type) -> any CompletionSource<T> {
        switch behavior {
        case .lockAcrossAPoint:
            if !registry.try() {
                contended.add(1, ordering: .relaxed)
                registry.lock()
            }
            defer { registry.unlock() }
            _ = Latch().wait(until: MonotonicClock.deadline(after: .milliseconds(1)))
            return base.makeSource(of: type)
        case .deadlocks:
            if calls.add(1, ordering: .relaxed).newValue == 2 { stuck.wait() }
            return base.makeSource(of: type)
        }
    }

    /// Lets a call blocked by `.deadlocks` go (once its run was given up), so that its thread ends.
    func unblock() {
        stuck.signal()
    }
}
