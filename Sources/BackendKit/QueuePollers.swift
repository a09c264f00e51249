import ScheduleKit
import Synchronization
import TaskAPI

/// The threads of a queue that poll its length a short while before they stop looking (an idle
/// worker before it parks, a drainer before it ends its turn), and the length they poll: the
/// kit's polling policy, used by its `ThreadPool`'s idle workers and by the GCD backend's
/// drainers (which are never idle: they poll for the next job of a stream).
///
/// The queue's owner mirrors its length here holding its own lock (`mirror`); a thread calls
/// `poll()` before it stops looking, then takes the lock and looks at the queue again, so work
/// pushed while it polled is never slept on. A push that sees at least as many pollers as queued
/// jobs need wake no sleeper (`count`). At most `limit` threads poll at once.
public struct QueuePollers: ~Copyable, Sendable {
    private let polling = Atomic<Int>(0)
    private let queued = Atomic<Int>(0)
    private let limit: Int
    private let busy: Int
    private let yielding: Int

    /// At most `limit` (at least 1) threads poll at once; each polls `busyPolls` times, then
    /// `yieldingPolls` times with a yield of the processor after each (the idle worker's policy,
    /// `idleBusyPolls` and 100, by default).
    public init(limit: Int, busyPolls: Int = QueuePollers.idleBusyPolls, yieldingPolls: Int = 100) {
        self.limit = max(1, limit)
        busy = max(0, busyPolls)
        yielding = max(0, yieldingPolls)
    }

    /// Records the queue length for polling threads; call it holding the queue's lock whenever
    /// the queue changes.
    @inline(__always)
    public func mirror(_ length: Int) {
        queued.store(length, ordering: .relaxed)
    }

    /// Threads polling right now (read by a push holding the queue's lock). None while a
    /// controlled run is active: pollers then poll once (`Spin`), and one still counted is a
    /// thread from before the run, which no seat may count on to take the work.
    @inline(__always)
    public var count: Int { SchedulePoint.isActive ? 0 : polling.load(ordering: .relaxed) }

    /// Busy polls before an idle worker starts yielding the processor: about 9 us on the project's
    /// machines (then 100 polls with a yield each, about 60 us). A shorter busy phase (2,000
    /// polls, about 1 us) left the actors pool's `await run {}.value` round trip bimodal per
    /// process, 1 us or 13 us, the slow mode waking the parked worker on every round trip;
    /// with 20,000 it stays at about 1 us (docs/BENCHMARKS.md).
    public static let idleBusyPolls = 20_000

    /// Polls the mirrored queue length for a short while; `true` if work showed up. Beyond
    /// `limit` pollers, returns `false` at once. The caller looks at the queue under its lock
    /// afterwards either way.
    public func poll() -> Bool {
        let pollers = polling.wrappingAdd(1, ordering: .relaxed).newValue
        defer { polling.wrappingSubtract(1, ordering: .relaxed) }
        guard pollers <= limit else { return false }
        return Spin.until(polls: busy + yielding, busy: busy) {
            queued.load(ordering: .relaxed) > 0
        }
    }
}
