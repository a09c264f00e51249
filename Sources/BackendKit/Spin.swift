#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Bounded busy-waiting before a thread parks: a hand-off that arrives within a few microseconds
/// skips the cost of sleeping on, and being woken from, a condition variable.
public enum Spin {
    /// Polls `ready` about `polls` times, yielding the processor after the first `busy` polls.
    /// Returns `true` as soon as `ready()` does, `false` if it never did.
    @inline(__always)
    public static func until(polls: Int = 2_100, busy: Int = 2_000, _ ready: () -> Bool) -> Bool {
        var index = 0
        while index < polls {
            if ready() { return true }
            if index >= busy { sched_yield() }
            index += 1
        }
        return false
    }
}

/// The idle workers of a pool that poll for work a short while before they park, and what they
/// poll: the kit's spin policy (its `ThreadPool` and the GCD backend's drainers use it).
///
/// The pool mirrors its queue length here holding its own lock (`mirror`); an idle worker calls
/// `spin()` before it parks, then takes the lock and looks at the queue again, so work pushed
/// while it spun is never slept on. A push that sees at least as many spinners as queued items
/// need wake no sleeper (`count`). At most `limit` workers spin at once.
public struct IdleSpinners: ~Copyable, Sendable {
    private let spinning = Atomic<Int>(0)
    private let queued = Atomic<Int>(0)
    private let limit: Int
    private let busy: Int
    private let yielding: Int

    /// At most `limit` (at least 1) workers spin at once; each polls `busyPolls` times, then
    /// `yieldingPolls` times with a yield of the processor after each (the idle worker's policy,
    /// `idleBusyPolls` and 100, by default).
    public init(limit: Int, busyPolls: Int = IdleSpinners.idleBusyPolls, yieldingPolls: Int = 100) {
        self.limit = max(1, limit)
        busy = max(0, busyPolls)
        yielding = max(0, yieldingPolls)
    }

    /// Records the queue length for spinning workers; call it holding the pool's lock whenever
    /// the queue changes.
    @inline(__always)
    public func mirror(_ length: Int) {
        queued.store(length, ordering: .relaxed)
    }

    /// Workers spinning right now (read by a push holding the pool's lock).
    @inline(__always)
    public var count: Int { spinning.load(ordering: .relaxed) }

    /// Busy polls before an idle worker starts yielding the processor: about 9 us on the project's
    /// machines (then 100 polls with a yield each, about 60 us). A shorter busy phase (2,000
    /// polls, about 1 us) left the actors pool's `await run {}.value` round trip bimodal per
    /// process, 1 us or 13 us, the slow mode waking the parked worker on every round trip;
    /// with 20,000 it stays at about 1 us (docs/BENCHMARKS.md).
    public static let idleBusyPolls = 20_000

    /// Polls the mirrored queue length for a short while; `true` if work showed up. Beyond
    /// `limit` spinners, returns `false` at once. The caller looks at the queue under its lock
    /// afterwards either way.
    public func spin() -> Bool {
        let spinners = spinning.wrappingAdd(1, ordering: .relaxed).newValue
        defer { spinning.wrappingSubtract(1, ordering: .relaxed) }
        guard spinners <= limit else { return false }
        return Spin.until(polls: busy + yielding, busy: busy) {
            queued.load(ordering: .relaxed) > 0
        }
    }
}
