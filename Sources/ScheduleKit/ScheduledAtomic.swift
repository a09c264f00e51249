import Synchronization

/// An atomic value whose every operation is a schedule point while a controlled run is active
/// (`SchedulePoint`): for a backend's lock-free state, where the order of two threads' atomic
/// operations carries meaning (a mailbox's word, a job's "ran" flag, an await's state). Without a
/// controlled run, each operation costs one relaxed load and a branch more than `Atomic`'s.
///
/// A value that is only a hint (a spinner's copy of a queue length, read to decide whether to
/// look under the lock) may stay a plain `Atomic`: its order changes nothing a lock does not
/// decide again.
public struct ScheduledAtomic<Value: AtomicRepresentable>: ~Copyable {
    @usableFromInline let atomic: Atomic<Value>

    @inlinable
    public init(_ value: consuming Value) {
        atomic = Atomic(value)
    }

    /// The point before every operation (no label is stored: an atomic never blocks a seat, so
    /// reports never name one).
    @inlinable @inline(__always)
    func point() {
        if SchedulePoint.isActive { SchedulePoint.atomicReached() }
    }
}

// `Atomic` offers its operations per storage size, and takes its orderings as constants only: the
// operations below exist for one-byte values (`Bool`, `UInt8`) and word-sized ones (`Int`,
// `UInt`), and pass their orderings through as `Atomic`'s own wrappers do (transparent, so a
// constant at the caller is a constant here).

#if _pointerBitWidth(_32)
public typealias AtomicWordStorage = _Atomic32BitStorage
#else
/// The storage of a word-sized atomic value on this platform.
public typealias AtomicWordStorage = _Atomic64BitStorage
#endif

extension ScheduledAtomic where Value.AtomicRepresentation == _Atomic8BitStorage {
    @_semantics("atomics.requires_constant_orderings") @_alwaysEmitIntoClient @_transparent
    public borrowing func load(ordering: AtomicLoadOrdering) -> Value {
        point()
        return atomic.load(ordering: ordering)
    }

    @_semantics("atomics.requires_constant_orderings") @_alwaysEmitIntoClient @_transparent
    public borrowing func store(_ desired: consuming Value, ordering: AtomicStoreOrdering) {
        point()
        atomic.store(desired, ordering: ordering)
    }

    @_semantics("atomics.requires_constant_orderings") @_alwaysEmitIntoClient @_transparent
    public borrowing func exchange(_ desired: consuming Value, ordering: AtomicUpdateOrdering) -> Value {
        point()
        return atomic.exchange(desired, ordering: ordering)
    }

    @_semantics("atomics.requires_constant_orderings") @_alwaysEmitIntoClient @_transparent
    public borrowing func compareExchange(
        expected: consuming Value, desired: consuming Value,
        successOrdering: AtomicUpdateOrdering, failureOrdering: AtomicLoadOrdering
    ) -> (exchanged: Bool, original: Value) {
        point()
        return atomic.compareExchange(
            expected: expected, desired: desired,
            successOrdering: successOrdering, failureOrdering: failureOrdering)
    }
}

extension ScheduledAtomic where Value.AtomicRepresentation == AtomicWordStorage {
    @_semantics("atomics.requires_constant_orderings") @_alwaysEmitIntoClient @_transparent
    public borrowing func load(ordering: AtomicLoadOrdering) -> Value {
        point()
        return atomic.load(ordering: ordering)
    }

    @_semantics("atomics.requires_constant_orderings") @_alwaysEmitIntoClient @_transparent
    public borrowing func store(_ desired: consuming Value, ordering: AtomicStoreOrdering) {
        point()
        atomic.store(desired, ordering: ordering)
    }

    @_semantics("atomics.requires_constant_orderings") @_alwaysEmitIntoClient @_transparent
    public borrowing func exchange(_ desired: consuming Value, ordering: AtomicUpdateOrdering) -> Value {
        point()
        return atomic.exchange(desired, ordering: ordering)
    }

    @_semantics("atomics.requires_constant_orderings") @_alwaysEmitIntoClient @_transparent
    public borrowing func compareExchange(
        expected: consuming Value, desired: consuming Value,
        successOrdering: AtomicUpdateOrdering, failureOrdering: AtomicLoadOrdering
    ) -> (exchanged: Bool, original: Value) {
        point()
        return atomic.compareExchange(
            expected: expected, desired: desired,
            successOrdering: successOrdering, failureOrdering: failureOrdering)
    }
}

extension ScheduledAtomic where Value == Int {
    @_semantics("atomics.requires_constant_orderings") @_alwaysEmitIntoClient @_transparent @discardableResult
    public borrowing func wrappingAdd(_ operand: Int, ordering: AtomicUpdateOrdering) -> (oldValue: Int, newValue: Int) {
        point()
        return atomic.wrappingAdd(operand, ordering: ordering)
    }

    @_semantics("atomics.requires_constant_orderings") @_alwaysEmitIntoClient @_transparent @discardableResult
    public borrowing func wrappingSubtract(_ operand: Int, ordering: AtomicUpdateOrdering) -> (oldValue: Int, newValue: Int) {
        point()
        return atomic.wrappingSubtract(operand, ordering: ordering)
    }
}

extension ScheduledAtomic: @unchecked Sendable where Value: Sendable {}
// Safe: `Atomic` is Sendable for a Sendable value and the label is a static string; spelled out
// because a non-copyable generic struct does not infer it.
