import TaskAPI

/// A FIFO of executor jobs in a growable ring buffer, for the backends' job queues. Not
/// thread-safe: its owner keeps it under a lock.
///
/// Pushing and popping one job at a time (a fan-out's steady state) allocates and moves nothing.
/// A popped slot is cleared at once, so the ring never keeps a job's captures alive after handing
/// the job out (C8.1). A drained ring larger than its kept capacity gives its storage back.
public struct JobRing {
    /// A job in a struct: a closure handed to `execute`, or a continuation's hand-off stored as
    /// it is (`KitQueueExecutor.push`). A closure stored in an array, returned through a generic
    /// function (`Locked.withLock`) or moved by a generic one (`Optional.take`) passes through the
    /// most general abstraction: wrapped in a thunk (an allocation) on the way in, in another on
    /// the way out. In a struct it keeps its own: pop a `Slot` and return it from a critical
    /// section as it is.
    public struct Slot: Sendable {
        /// A continuation, the task it was registered on and that task's outcome: what the
        /// closure of `HandOff.enqueue` would capture, without the closure's allocation.
        @usableFromInline
        struct ReadyContinuation: Sendable {
            @usableFromInline let continuation: KitContinuation
            @usableFromInline let outcome: KitCompletion
            @usableFromInline let antecedent: TaskCore
        }

        // Two optional fields rather than an enum of the two jobs: an enum with two payloads is
        // copied and destroyed through outlined functions that retain and release each of its
        // references, where a test of a field loads a word. Inlinable, with `isEmpty` and `run`,
        // into the backends' queues: a call into this module for each cost about 20 instructions
        // per job.
        @usableFromInline var closure: (@Sendable () -> Void)?
        @usableFromInline var handOff: ReadyContinuation?

        /// An empty slot.
        public init() {}

        /// A slot holding `job`.
        public init(_ job: @escaping @Sendable () -> Void) {
            closure = job
        }

        /// A slot holding a continuation's hand-off: running it runs `continuation` with
        /// `outcome`, from `antecedent` (`KitContinuation.run`).
        @inline(__always)
        init(handOff continuation: KitContinuation, _ outcome: KitCompletion, from antecedent: TaskCore) {
            handOff = ReadyContinuation(continuation: continuation, outcome: outcome, antecedent: antecedent)
        }

        /// Whether the slot holds no job.
        @inlinable
        public var isEmpty: Bool {
            handOff == nil && closure == nil
        }

        /// Runs the job, if any, once; what it holds is released when it returns (C8.1).
        @inlinable
        public consuming func run() {
            // Moved out of the slot, not copied: no retain and release of what it holds.
            if let handOff = handOff.take() {
                return handOff.continuation.run(handOff.outcome, from: handOff.antecedent)
            }
            runClosure()
        }

        /// `run()` on a thread whose runtime, `runtime` (`ThreadRuntime.current`), the caller has
        /// at hand, as a drainer that runs many jobs does: a continuation's hand-off that
        /// completes its task then queues onto that runtime's trampoline without looking it up
        /// (24 instructions per job). Not an optional parameter of `run()`: unwrapping it retained
        /// the runtime for every job.
        @inlinable
        public consuming func run(on runtime: ThreadRuntime) {
            if let handOff = handOff.take() {
                return handOff.continuation.run(handOff.outcome, from: handOff.antecedent, on: runtime)
            }
            runClosure()
        }

        /// Runs the closure, if any, once.
        @inlinable
        consuming func runClosure() {
            // Moved out by `swap` and consumed: bound with `if let` from the slot, the closure was
            // copied, a retain and a release of its context per job (callgrind, fan-out).
            var job: (@Sendable () -> Void)?
            swap(&job, &closure)
            if let job = consume job { job() }
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
        push(Slot(job))
    }

    /// Appends the job of `slot` at the tail.
    public mutating func push(_ slot: consuming Slot) {
        var slot = slot
        push(moving: &slot)
    }

    /// Appends the job of `slot` at the tail, moved out of `slot` (left empty): no retain and
    /// release of what it holds, where a copy into the ring would retain them and the caller's
    /// slot release them.
    public mutating func push(moving slot: inout Slot) {
        if queued == slots.count { grow() }
        swap(&slots[(head + queued) & (slots.count - 1)], &slot)
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
        let mask = slots.count - 1
        for index in 0..<queued {
            // Moved, not copied: no retain of each job here and release with the old storage.
            swap(&fresh[index], &slots[(head + index) & mask])
        }
        slots = fresh
        head = 0
    }
}
