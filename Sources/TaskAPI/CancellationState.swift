/// The state of one cancellation source as a small value (C4.1, C4.2): a backend keeps it under
/// its own lock and runs the handlers it returns after releasing the lock.
///
/// It records what was requested, not who is still running handlers: C4.1 also asks that a
/// `cancel()` racing the first one return only after the first one's handlers ran (a linked
/// source is then cancelled too). `StandardCancellationSource` adds that; a backend using this
/// type directly must make its later `cancel()` calls wait the same way, except a call from
/// inside a handler on the thread running them, which returns at once.
///
/// The handlers are kept in registration order as they come (ids only grow, so appending keeps
/// the array sorted by id): `cancel()` hands them over in one pass, with no sort, and costs the
/// same per handler however many there are. A disposed registration leaves a tombstone (its
/// handler released at once, C4.2), found by binary search; tombstones are swept out once they
/// outnumber the live handlers, so a long-lived source that registers and disposes without end
/// holds at most about twice its live handlers.
public struct CancellationState<Handler> {
    public private(set) var isCancellationRequested = false
    /// Registration order, which is id order; `handler` is `nil` for a disposed registration.
    private var slots: [(id: UInt64, handler: Handler?)] = []
    /// Slots whose handler was disposed.
    private var tombstones = 0
    private var nextID: UInt64 = 0

    @inlinable
    public init() {}

    /// Stores `handler` and returns its id, or `nil` if cancellation was already requested:
    /// then the caller runs the handler now (C4.2).
    public mutating func register(_ handler: Handler) -> UInt64? {
        guard !isCancellationRequested else { return nil }
        let id = nextID
        nextID += 1
        slots.append((id, handler))
        return id
    }

    /// Forgets the handler with `id` (C4.2: a disposed registration never runs and is released).
    /// An id already disposed, or from before `cancel()`, is ignored.
    public mutating func dispose(_ id: UInt64) {
        guard let index = slotIndex(of: id), slots[index].handler != nil else { return }
        slots[index].handler = nil
        tombstones += 1
        if tombstones > 16, tombstones * 2 > slots.count { sweep() }
    }

    /// Requests cancellation. Returns the handlers to run, in registration order, the first time;
    /// `nil` afterwards (C4.1: idempotent; the caller that got `nil` must still wait until the
    /// first caller's handlers ran before returning, see above).
    public mutating func cancel() -> [Handler]? {
        guard !isCancellationRequested else { return nil }
        isCancellationRequested = true
        defer {
            slots = []
            tombstones = 0
        }
        return slots.compactMap { $0.handler }
    }

    /// The index of the slot with `id`, by binary search (the slots are in id order).
    private func slotIndex(of id: UInt64) -> Int? {
        var low = 0
        var high = slots.count
        while low < high {
            let middle = (low + high) / 2
            if slots[middle].id < id { low = middle + 1 } else { high = middle }
        }
        return low < slots.count && slots[low].id == id ? low : nil
    }

    /// Drops the tombstones, keeping the live handlers in order.
    private mutating func sweep() {
        slots.removeAll { $0.handler == nil }
        tombstones = 0
    }
}

extension CancellationState: Sendable where Handler: Sendable {}
