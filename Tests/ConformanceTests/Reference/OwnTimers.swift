import Dispatch
import Foundation

/// The test backends' timers (the reference backend's, `LoopBackend`'s): one thread of their own
/// waits for the earliest deadline and hands each job that is due to `OwnThreads`, so that no
/// Dispatch pool is on a timer's path. Dispatch's timers fire onto a queue whose threads other
/// suites of the test process may hold (the global queue's few, blocked; the overcommit pool's,
/// capped), and a delay then fires seconds late (C5.4; docs/CONFORMANCE.md, "Known limits").
final class OwnTimers: @unchecked Sendable {
    // @unchecked Sendable: every stored var is touched only with `condition` held.
    static let shared = OwnTimers()

    private let condition = NSCondition()
    /// Jobs by deadline (`DispatchTime` nanoseconds), the earliest first; of equal deadlines, the
    /// one set first.
    private var pending: [(deadline: UInt64, job: @Sendable () -> Void)] = []
    private var started = false

    /// Hands `job` to `OwnThreads` once `delay` has passed (at once for a delay of 0 or less;
    /// delays are clamped to 2^32 s, beyond which nothing here waits).
    func after(_ delay: Duration, _ job: @escaping @Sendable () -> Void) {
        let (seconds, attoseconds) = min(max(delay, .zero), .seconds(Int64(1) << 32)).components
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
        condition.lock()
        let index = pending.firstIndex { $0.deadline > deadline } ?? pending.count
        pending.insert((deadline, job), at: index)
        if !started {
            started = true
            Thread { [self] in run() }.start()
        }
        if index == 0 { condition.signal() }
        condition.unlock()
    }

    /// The timer thread: sleeps until the earliest deadline (or a new earlier one), then hands
    /// every due job over, oldest deadline first.
    private func run() {
        condition.lock()
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            guard let first = pending.first else {
                condition.wait()
                continue
            }
            guard first.deadline <= now else {
                _ = condition.wait(until: Date(timeIntervalSinceNow: Double(first.deadline - now) / 1e9))
                continue
            }
            pending.removeFirst()
            condition.unlock()
            OwnThreads.shared.execute(first.job)
            condition.lock()
        }
    }
}
