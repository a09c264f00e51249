import Synchronization

/// A `Mutex` whose hand-offs the thread sanitizer can see, and a controlled run can schedule:
/// for a backend's own state, in any module (this package's backends use it, and so can a
/// third-party backend). The value may be non-copyable (BackendKit's `JobRing` is).
///
/// On Linux, `Synchronization.Mutex` hands a contended lock over through a priority-inheriting
/// futex in the kernel, which the thread sanitizer does not observe: it then reports races
/// between critical sections of one mutex. Every critical section here also reads an adjacent
/// atomic with acquire ordering on entry and writes it with release ordering on exit; since the
/// mutex orders the critical sections, each entry reads the previous exit's write, an edge the
/// sanitizer does see. The cost is two uncontended atomic operations on a line already owned.
///
/// While a controlled run is active (`SchedulePoint.isActive`), a critical section on one of its
/// seats is a schedule point before the lock and one after the release, and a seat that finds
/// the lock taken is blocked until its release (`SchedulePoint.withLock`); without one, each
/// costs one relaxed load and a branch more. Its identity for the checker is its address (it is
/// `~Copyable`: a borrow is the original).
///
/// Public rather than `package`: this toolchain does not make a `package` function's inlinable
/// body available to other modules, so each `withLock` from a backend ran unspecialized and
/// looked up the metadata of `Locked<Value>` and `Mutex<Value>` at run time, about 650
/// instructions per critical section (callgrind, the GCD default executor).
public struct Locked<Value: ~Copyable>: ~Copyable {
    @usableFromInline let mutex: Mutex<Value>
    @usableFromInline let edge: Atomic<Int>

    @inlinable
    public init(_ value: consuming sending Value) {
        mutex = Mutex(value)
        edge = Atomic(0)
    }

    /// Runs `body` with exclusive access to the value. `label` names the lock in a controlled
    /// run's reports (the caller's file, by default).
    @inlinable
    public borrowing func withLock<Result: Sendable>(
        label: StaticString = #fileID, _ body: (inout Value) throws -> Result
    ) rethrows -> Result {
        if SchedulePoint.isActive { return try withLockUnderControl(label, body) }
        return try mutex.withLock { (value: inout sending Value) throws -> Result in
            _ = edge.load(ordering: .acquiring)
            defer { edge.store(0, ordering: .releasing) }
            return try body(&value)
        }
    }

    /// `withLock` while a controlled run is active: through the calling thread's seat, if any.
    @inlinable @inline(never)
    borrowing func withLockUnderControl<Result: Sendable>(
        _ label: StaticString, _ body: (inout Value) throws -> Result
    ) rethrows -> Result {
        let identity = withUnsafePointer(to: edge) { SchedulePoint.Object(address: UInt(bitPattern: $0)) }
        return try SchedulePoint.withLock(
            identity, label: label,
            native: {
                try mutex.withLock { (value: inout sending Value) throws -> Result in
                    _ = edge.load(ordering: .acquiring)
                    defer { edge.store(0, ordering: .releasing) }
                    return try body(&value)
                }
            },
            attempt: { acquired in
                try mutex.withLockIfAvailable { (value: inout sending Value) throws -> Result in
                    acquired()
                    _ = edge.load(ordering: .acquiring)
                    defer { edge.store(0, ordering: .releasing) }
                    return try body(&value)
                }
            },
            // The value is not touched: taken and let go at once if free.
            isTaken: { mutex.withLockIfAvailable { _ in true } == nil })
    }
}

extension Locked: @unchecked Sendable where Value: ~Copyable {}
// Safe: `Mutex` is itself Sendable for any value, and `Atomic<Int>` is Sendable; the conformance
// is spelled out only because a non-copyable generic struct does not infer it.
