import Dispatch
import Foundation
import Synchronization

/// The arrival of a hop at its continuation, and its time: marked on the continuation's thread,
/// waited for on the sampling thread, by sleeping on a semaphore or (`spins`) by polling.
final class Arrival: Sendable {
    private let stamp = Atomic<UInt64>(0)
    private let semaphore = DispatchSemaphore(value: 0)
    let spins: Bool

    /// Busy polls before a polling wait yields the processor at each poll (about 1 us).
    static let busyPolls = 2_000

    init(spins: Bool) { self.spins = spins }

    func arrive() {
        stamp.store(monotonicNanos(), ordering: .releasing)
        if !spins { semaphore.signal() }
    }

    /// Waits for the next arrival; its time (monotonic nanoseconds, never 0).
    func wait() -> UInt64 {
        if spins {
            // Busy at first; then yielding the processor at each poll, so that on a machine with
            // as many busy threads as cores the thread this one waits for can run here (a pure
            // spin left it waiting for the scheduler's next tick, 4 ms, in one process of three).
            var polls = 0
            while stamp.load(ordering: .acquiring) == 0 {
                polls += 1
                if polls > Self.busyPolls { sched_yield() }
            }
        } else {
            semaphore.wait()
        }
        return stamp.exchange(0, ordering: .acquiringAndReleasing)
    }
}

/// A value set once by a Swift task and read by the thread that blocked on it.
final class ResultBox<T: Sendable>: Sendable {
    private let slot = Mutex<T?>(nil)

    func set(_ value: T) { slot.withLock { $0 = value } }
    var value: T? { slot.withLock { $0 } }
}

/// Runs `body` in a detached Swift task and blocks the calling thread until it returns.
///
/// Detached on purpose: in synchronous top-level code a plain `Task {}` would inherit the main
/// actor, which this blocked thread is running, and deadlock.
nonisolated func blockOn<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T? {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        box.set(await body())
        done.signal()
    }
    done.wait()
    return box.value
}

/// An atomic counter that escaping closures can share.
final class Counter: Sendable {
    private let storage = Atomic<Int>(0)

    init(_ value: Int = 0) { storage.store(value, ordering: .relaxed) }

    @discardableResult
    func add(_ delta: Int) -> Int { storage.add(delta, ordering: .acquiringAndReleasing).newValue }
    var value: Int { storage.load(ordering: .acquiring) }
}

/// A value under a lock that escaping closures can share.
final class LockedBox<T: Sendable>: Sendable {
    private let mutex: Mutex<T>

    init(_ value: T) { mutex = Mutex(value) }

    func withLock<R: Sendable>(_ body: (inout T) -> R) -> R { mutex.withLock { body(&$0) } }
}

/// Runs `jobs` on `width` threads at once and returns their results in order. For child-process
/// probes, which time nothing and only wait on their child.
func runConcurrently<T: Sendable>(_ jobs: [@Sendable () -> T], width: Int) -> [T] {
    let results = LockedBox([T?](repeating: nil, count: jobs.count))
    let lanes = Swift.max(1, Swift.min(width, jobs.count))
    DispatchQueue.concurrentPerform(iterations: lanes) { lane in
        for index in stride(from: lane, to: jobs.count, by: lanes) {
            let value = jobs[index]()
            results.withLock { $0[index] = value }
        }
    }
    return results.withLock { $0.compactMap { $0 } }
}
