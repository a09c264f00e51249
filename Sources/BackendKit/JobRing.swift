/// A FIFO of executor jobs in a growable ring buffer, for the backends' job queues. Not
/// thread-safe: its owner keeps it under a lock.
///
/// Pushing and popping one job at a time (a fan-out's steady state) allocates and moves nothing.
/// A popped slot is cleared at once, so the ring never keeps a job's captures alive after handing
/// the job out (C8.1). A drained ring larger than its kept capacity gives its storage back.
public struct JobRing {
    /// A job in a struct. A closure stored in an array, returned through a generic function
    /// (`Locked.withLock`) or moved by a generic one (`Optional.take`) passes through the most
    /// general abstraction: wrapped in a thunk (an allocation) on the way in, in another on the
    /// way out. In a struct it keeps its own: pop a `Slot` and return it from a critical section
    /// as it is.
    public struct Slot: Sendable {
        public var job: (@Sendable () -> Void)?

        public init(_ job: (@Sendable () -> Void)? = nil) {
            self.job = job
        }
    }

    /// Capacity 0 or a power of two, so that an index wraps with a mask.
    private var slots: [Slot] = []
    private var head = 0
    private var queued = 0
    private let keptCapacity: Int

    /// An empty ring that, once drained, keeps at most `keptCapacity` slots of storage.
    public init(keptCapacity: Int) {
        self.keptCapacity = keptCapacity
    }

    /// The number of queued jobs.
    public var count: Int { queued }

    public var isEmpty: Bool { queued == 0 }

    /// Appends `job` at the tail.
    public mutating func push(_ job: @escaping @Sendable () -> Void) {
        if queued == slots.count { grow() }
        slots[(head + queued) & (slots.count - 1)].job = job
        queued += 1
    }

    /// The oldest job, cleared from its slot, or an empty slot.
    public mutating func pop() -> Slot {
        guard queued > 0 else { return Slot() }
        // Moved out, not copied: no retain and release of the job.
        var slot = Slot()
        swap(&slot, &slots[head])
        head = (head + 1) & (slots.count - 1)
        queued -= 1
        if queued == 0 {
            head = 0
            if slots.count > keptCapacity { slots = [] }
        }
        return slot
    }

    /// Doubles the capacity, the queued jobs moved to the front in order.
    private mutating func grow() {
        var fresh = [Slot](repeating: Slot(), count: Swift.max(16, slots.count * 2))
        for index in 0..<queued {
            fresh[index] = slots[(head + index) & (slots.count - 1)]
        }
        slots = fresh
        head = 0
    }
}
