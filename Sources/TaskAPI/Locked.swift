import Synchronization

/// A `Mutex` whose hand-offs the thread sanitizer can see: for a backend's own state, in any
/// module (this package's backends and harness use it, and so can a third-party backend).
///
/// On Linux, `Synchronization.Mutex` hands a contended lock over through a priority-inheriting
/// futex in the kernel, which the thread sanitizer does not observe: it then reports races
/// between critical sections of one mutex. Every critical section here also reads an adjacent
/// atomic with acquire ordering on entry and writes it with release ordering on exit; since the
/// mutex orders the critical sections, each entry reads the previous exit's write, an edge the
/// sanitizer does see. The cost is two uncontended atomic operations on a line already owned.
///
/// Public rather than `package`: this toolchain does not make a `package` function's inlinable
/// body available to other modules, so each `withLock` from a backend ran unspecialized and
/// looked up the metadata of `Locked<Value>` and `Mutex<Value>` at run time, about 650
/// instructions per critical section (callgrind, the GCD default executor).
public struct Locked<Value>: ~Copyable {
    @usableFromInline let mutex: Mutex<Value>
    @usableFromInline let edge: Atomic<Int>

    @inlinable
    public init(_ value: sending Value) {
        mutex = Mutex(value)
        edge = Atomic(0)
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    public borrowing func withLock<Result: Sendable>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try mutex.withLock { (value: inout sending Value) throws -> Result in
            _ = edge.load(ordering: .acquiring)
            defer { edge.store(0, ordering: .releasing) }
            return try body(&value)
        }
    }
}

extension Locked: @unchecked Sendable {}
// Safe: `Mutex` is itself Sendable for any value, and `Atomic<Int>` is Sendable; the conformance
// is spelled out only because a non-copyable generic struct does not infer it.
