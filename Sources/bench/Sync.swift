import Dispatch
import Synchronization

/// A time stamp written by one thread and read by another after a semaphore hand-off.
final class Stamp: Sendable {
    private let value = Atomic<UInt64>(0)

    func mark() { value.store(monotonicNanos(), ordering: .releasing) }
    var nanos: UInt64 { value.load(ordering: .acquiring) }
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
