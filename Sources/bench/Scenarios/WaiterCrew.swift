import Dispatch
import Foundation
import Synchronization

/// Threads that each block in a wait on one event, for scaling's waiters series: `round` hands
/// the first `count` of them the same blocking wait, lets them park, fires the event and
/// measures the processor time the process spends from the firing until the last of them has
/// returned (waking them, and their returns).
///
/// The threads live as long as the crew (started once, outside any timing). Each announces
/// itself just before waiting; the round then waits until the kernel shows every one of them
/// asleep (Linux: state `S` in /proc/self/task/TID/stat; elsewhere, or past `parkLimit`, it goes
/// on after `settle`). Firing earlier measured the waiters' own way to their sleep (registering,
/// spinning) as part of waking them: at load 18 on 2 cores, 64 waiters had not all parked after
/// 0.5 ms, and the per-waiter cost from 8 to 64 waiters rose 2.5x to 3.4x on every backend.
final class WaiterCrew: Sendable {
    /// A round's work for a crew thread: block until the event, then return `true` if what it
    /// saw was right.
    typealias Wait = @Sendable () -> Bool

    /// Seconds a round gives its waiters to park before it fires, once they are seen asleep
    /// (or when they cannot be seen).
    static let settle = 0.0002
    /// Seconds a round waits at most for its waiters to be seen asleep.
    static let parkLimit = 0.1

    private let starts: [DispatchSemaphore]
    /// Each thread's /proc/self/task/TID/stat, once it has started (Linux).
    private let statPaths = Mutex<[String?]>([])
    private let job = Mutex<Wait?>(nil)
    private let stopped = Atomic(false)
    private let ready = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let remaining = Counter()
    private let wrong = Counter()

    init(threads: Int) {
        starts = (0..<threads).map { _ in DispatchSemaphore(value: 0) }
        statPaths.withLock { $0 = Array(repeating: nil, count: threads) }
        for (index, start) in starts.enumerated() {
            Thread { [self] in
                let path = WaiterCrew.ownStatPath()
                statPaths.withLock { $0[index] = path }
                serve(start)
            }.start()
        }
    }

    /// This thread's stat file, `/proc/self/task/TID/stat`, from the `/proc/thread-self` link;
    /// `nil` where there is none.
    private static func ownStatPath() -> String? {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"),
            let tid = target.split(separator: "/").last
        else { return nil }
        return "/proc/self/task/\(tid)/stat"
    }

    /// Waits until the kernel shows the first `count` threads asleep, for at most `parkLimit`;
    /// `false` if it could not tell or they did not all sleep in time.
    private func awaitAsleep(_ count: Int) -> Bool {
        let paths = statPaths.withLock { Array($0.prefix(count)) }
        let deadline = monotonicNanos() + UInt64(WaiterCrew.parkLimit * 1e9)
        while monotonicNanos() < deadline {
            var all = true
            for path in paths {
                // The state is the field after the command name, which ends at the last ')'.
                guard let path, let stat = try? String(contentsOfFile: path, encoding: .utf8),
                    let close = stat.lastIndex(of: ")")
                else { return false }
                if stat[stat.index(after: close)...].dropFirst().first != "S" {
                    all = false
                    break
                }
            }
            if all { return true }
            sched_yield()
        }
        return false
    }

    var capacity: Int { starts.count }

    private func serve(_ start: DispatchSemaphore) {
        while true {
            start.wait()
            if stopped.load(ordering: .acquiring) { return }
            guard let wait = job.withLock({ $0 }) else { continue }
            ready.signal()
            if !wait() { wrong.add(1) }
            if remaining.add(-1) == 0 { finished.signal() }
        }
    }

    /// One round: `count` threads (at most `capacity`) block in `wait`; once they had time to
    /// park, `fire` wakes them. Processor nanoseconds (`processCPUNanos`) from just before `fire`
    /// until the last has returned, and whether every thread saw the right outcome.
    func round(_ count: Int, wait: @escaping Wait, fire: () -> Void) -> (nanos: UInt64, ok: Bool) {
        precondition(count >= 1 && count <= capacity, "WaiterCrew: a round of \(count) waiters on a crew of \(capacity)")
        job.withLock { $0 = wait }
        remaining.add(count)
        let wrongBefore = wrong.value
        for start in starts.prefix(count) { start.signal() }
        for _ in 0..<count { ready.wait() }
        _ = awaitAsleep(count)
        // A sleep, not a spin: on 2 cores the waiters need the processor to get to their sleep.
        Thread.sleep(forTimeInterval: WaiterCrew.settle)
        let fired = processCPUNanos()
        fire()
        finished.wait()
        let used = processCPUNanos() &- fired
        job.withLock { $0 = nil }
        return (used, wrong.value == wrongBefore)
    }

    /// Lets every thread return; the crew is unusable afterwards.
    func stop() {
        stopped.store(true, ordering: .releasing)
        for start in starts { start.signal() }
    }
}

/// The raw baseline of the waiters series: a flag under an `NSCondition`, set once and broadcast,
/// which every waiter sleeps on (what a hand-written one-shot event is).
final class CondvarEvent: @unchecked Sendable {
    // @unchecked: `isSet` is only read or written with `condition` locked.
    private let condition = NSCondition()
    private var isSet = false

    func wait() {
        condition.lock()
        while !isSet { condition.wait() }
        condition.unlock()
    }

    func set() {
        condition.lock()
        isSet = true
        condition.broadcast()
        condition.unlock()
    }
}
