import Synchronization

/// A `Mutex` whose hand-offs the thread sanitizer can see. For this package's modules only.
///
/// On Linux, `Synchronization.Mutex` hands a contended lock over through a priority-inheriting
/// futex in the kernel, which the thread sanitizer does not observe: it then reports races
/// between critical sections of one mutex. Every critical section here also reads an adjacent
/// atomic with acquire ordering on entry and writes it with release ordering on exit; since the
/// mutex orders the critical sections, each entry reads the previous exit's write, an edge the
/// sanitizer does see. The cost is two uncontended atomic operations on a line already owned.
package struct Locked<Value>: ~Copyable {
    @usableFromInline let mutex: Mutex<Value>
    @usableFromInline let edge: Atomic<Int>

    @inlinable
    package init(_ value: sending Value) {
        mutex = Mutex(value)
        edge = Atomic(0)
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    package borrowing func withLock<Result: Sendable>(_ body: (inout Value) throws -> Result) rethrows -> Result {
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
