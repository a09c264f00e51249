import Synchronization

/// The harness's own lock around a value: ScheduleKit's `Locked` without its schedule points. The
/// harness's bookkeeping (the event log, slots, probes, the engine itself) runs on the seats of a
/// controlled run too, and must not be scheduled: every log append would be a point, and a seat
/// parked inside one would block the run. It keeps `Locked`'s atomic edge, which the thread
/// sanitizer sees (a contended `Mutex` hands over through a futex it does not observe).
struct PlainLocked<Value>: ~Copyable {
    private let mutex: Mutex<Value>
    private let edge = Atomic<Int>(0)

    init(_ value: sending Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with exclusive access to the value.
    borrowing func withLock<Result: Sendable>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try mutex.withLock { (value: inout sending Value) throws -> Result in
            _ = edge.load(ordering: .acquiring)
            defer { edge.store(0, ordering: .releasing) }
            return try body(&value)
        }
    }
}

extension PlainLocked: @unchecked Sendable {}
// Safe: `Mutex` and `Atomic<Int>` are Sendable; spelled out because a non-copyable generic struct
// does not infer it.
