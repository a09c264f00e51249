import Dispatch
import Foundation
import Synchronization

/// What a user would write by hand instead of using a backend: the baselines every backend
/// figure is divided by. Each scenario picks the ones that match its cases.

/// Keeps a value alive and opaque to the optimizer, so measured work is not optimized away.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Raw threads: one consumer thread woken through a condition variable (NSCondition).
final class CondvarHandoff: @unchecked Sendable {
    // @unchecked: `pending` and `stopped` are only read or written with `condition` locked.
    private let condition = NSCondition()
    private var pending = false
    private var stopped = false
    private let arrival: Arrival

    /// `arrival` carries the consumer's start back to `hop()`'s caller (polled or slept on).
    init(arrival: Arrival) {
        self.arrival = arrival
        let thread = Thread { [self] in consume() }
        thread.start()
    }

    private func consume() {
        while true {
            condition.lock()
            while !pending && !stopped { condition.wait() }
            if stopped {
                condition.unlock()
                return
            }
            pending = false
            condition.unlock()
            arrival.arrive()
        }
    }

    /// Nanoseconds from signalling the condition to the consumer running.
    func hop() -> UInt64 {
        let start = monotonicNanos()
        condition.lock()
        pending = true
        condition.signal()
        condition.unlock()
        return arrival.wait() &- start
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }
}

/// Raw threads: a fixed pool of threads draining one queue under an NSCondition.
final class RawThreadPool: @unchecked Sendable {
    // @unchecked: `jobs`, `head` and `stopped` are only touched with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0
    private var stopped = false

    init(threads: Int) {
        for _ in 0..<Swift.max(threads, 1) {
            Thread { [self] in work() }.start()
        }
    }

    private func work() {
        while true {
            condition.lock()
            while head == jobs.count && !stopped { condition.wait() }
            if head == jobs.count {
                condition.unlock()
                return
            }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            condition.unlock()
            job()
        }
    }

    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }
}

/// A hand-written promise: a value and a callback list under a Mutex. The baseline for
/// registering and racing setters (contention) and for a pending task's memory.
final class RawPromise: Sendable {
    private struct State {
        var value: Int?
        var callbacks: [@Sendable (Int) -> Void] = []
    }

    private let state = Mutex(State())

    func onComplete(_ callback: @escaping @Sendable (Int) -> Void) {
        let ready: Int? = state.withLock { state in
            if let value = state.value { return value }
            state.callbacks.append(callback)
            return nil
        }
        if let ready { callback(ready) }
    }

    @discardableResult
    func trySet(_ value: Int) -> Bool {
        let callbacks: [@Sendable (Int) -> Void]? = state.withLock { state in
            if state.value != nil { return nil }
            state.value = value
            defer { state.callbacks = [] }
            return state.callbacks
        }
        guard let callbacks else { return false }
        for callback in callbacks { callback(value) }
        return true
    }
}

/// A plain closure chain: `n` closures appended to an array, then applied in a loop.
/// Returns seconds for both steps together (the analogue of building and firing a chain).
///
/// With `prefault` the array's memory is written once before the clock starts: a fresh buffer
/// of megabytes costs a page fault per 4 KiB on first use, and whether malloc hands out fresh
/// pages or reused ones depends on its mmap threshold, which swung this baseline between 9 and
/// 16 ns/link from one repetition to the next. (The instruction count leaves it out: there
/// it would add to every link.)
func closureChainSeconds(_ n: Int, prefault: Bool = true) -> Double {
    var links: [(Int) -> Int] = []
    links.reserveCapacity(n)
    if prefault {
        for _ in 0..<n { links.append { $0 } }
        links.removeAll(keepingCapacity: true)
    }
    return timed {
        for _ in 0..<n { links.append { $0 &+ 1 } }
        var x = 0
        for link in links { x = link(x) }
        blackHole(x)
        links.removeAll(keepingCapacity: true)
    }
}

/// Raw Dispatch: a chain of `n` steps, each submitting the next to the global queue.
func dispatchChainSeconds(_ n: Int) -> Double {
    let done = DispatchSemaphore(value: 0)
    @Sendable func step(_ i: Int) {
        if i == n {
            done.signal()
        } else {
            DispatchQueue.global().async { step(i + 1) }
        }
    }
    return timed {
        step(0)
        done.wait()
    }
}
