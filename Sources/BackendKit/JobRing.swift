import TaskAPI

/// A FIFO of executor jobs in a growable ring buffer, for the backends' job queues. Not
/// thread-safe: its owner keeps it under a lock (`ConditionLock` and `Locked` take a non-copyable
/// value).
///
/// Pushing and popping one job at a time (a fan-out's steady state) allocates nothing. A popped
/// job is moved out of the ring at once, so the ring never keeps a job's captures alive after
/// handing the job out (C8.1). A drained ring larger than its kept capacity gives its storage
/// back.
public struct JobRing: ~Copyable {
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

    // The ring's storage: `capacity` slots (0 or a power of two, so that an index wraps with a
    // mask) in memory this struct allocates and frees itself. Of them, exactly the `queued` slots
    // from `head` on, wrapping, are initialized; every other one is raw memory. On an `Array`,
    // each push and pop paid a uniqueness check and a bounds check, and an empty `Slot` written
    // into each freed place (about 54 instructions each, callgrind); here a push initializes one
    // slot and a pop moves one out. Non-copyable, so that no copy can share (and free twice) the
    // storage; its owner keeps it inside the state its lock guards.
    @usableFromInline var storage: UnsafeMutablePointer<Slot>?
    @usableFromInline var capacity = 0
    @usableFromInline var head = 0
    @usableFromInline var queued = 0
    @usableFromInline let keptCapacity: Int

    /// An empty ring that, once drained, keeps at most `keptCapacity` slots of storage.
    public init(keptCapacity: Int) {
        self.keptCapacity = keptCapacity
    }

    deinit {
        // The jobs still queued are released with the ring, as an array's elements would be.
        checkInvariants()
        if let storage { Self.free(storage, capacity: capacity, head: head, queued: queued) }
    }

    /// The number of queued jobs.
    @inlinable
    public var count: Int { queued }

    @inlinable
    public var isEmpty: Bool { queued == 0 }

    /// Appends `job` at the tail.
    @inlinable
    public mutating func push(_ job: @escaping @Sendable () -> Void) {
        push(Slot(job))
    }

    /// Appends the job of `slot` at the tail.
    @inlinable
    public mutating func push(_ slot: consuming Slot) {
        if queued == capacity { grow() }
        checkInvariants()
        // Safe: after `grow()` the storage exists and has a free place (`queued < capacity`), and
        // the tail index, masked, is inside it and past the initialized range, so it is raw memory.
        (storage.unsafelyUnwrapped + ((head + queued) & (capacity - 1))).initialize(to: slot)
        queued += 1
    }

    /// Appends the job of `slot` at the tail, moved out of `slot` (left empty): no retain and
    /// release of what it holds, where a copy into the ring would retain them and the caller's
    /// slot release them.
    @inlinable
    public mutating func push(moving slot: inout Slot) {
        if queued == capacity { grow() }
        checkInvariants()
        // Safe: as in `push(_:)`, the tail place is raw memory inside the storage. The slot's
        // bytes are moved into it, and `slot` is initialized again with an empty slot, which owns
        // nothing: each reference it held now has one owner, the ring. Wrapping arithmetic here
        // and in `pop()`: the invariants bound `head` and `queued` by `capacity` (a power of two,
        // at least 1 here), so nothing can overflow, and a checked operation cost a test each.
        let tail = storage.unsafelyUnwrapped + ((head &+ queued) & (capacity &- 1))
        withUnsafeMutablePointer(to: &slot) { source in
            tail.moveInitialize(from: source, count: 1)
            source.initialize(to: Slot())
        }
        queued &+= 1
    }

    /// The oldest job, moved out of the ring, or an empty slot.
    @inlinable
    public mutating func pop() -> Slot {
        guard queued > 0 else { return Slot() }
        checkInvariants()
        // Safe: a queued job means the storage exists, and the slot at `head` (inside it, by the
        // invariants) is initialized. `move()` leaves it raw memory, which it now is outside the
        // initialized range: nothing the ring keeps holds the job's captures (C8.1).
        let slot = (storage.unsafelyUnwrapped + head).move()
        head = (head &+ 1) & (capacity &- 1)
        queued &-= 1
        if queued == 0 {
            head = 0
            if capacity > keptCapacity { releaseStorage() }
        }
        return slot
    }

    /// Debug builds: the ring's invariants, before each unsafe access.
    @inlinable @inline(__always)
    func checkInvariants() {
        assert(capacity == 0 || capacity & (capacity - 1) == 0, "JobRing: capacity \(capacity) is not a power of two")
        assert((storage == nil) == (capacity == 0), "JobRing: storage and capacity \(capacity) disagree")
        assert(queued >= 0 && queued <= capacity, "JobRing: \(queued) jobs queued in \(capacity) slots")
        assert(head >= 0 && (head < capacity || head == 0), "JobRing: head \(head) outside \(capacity) slots")
    }

    /// Doubles the capacity (at least 16 slots), the queued jobs moved to the front in order:
    /// their bytes moved, no retain of each job here and release with the old storage.
    @usableFromInline @inline(never)
    mutating func grow() {
        checkInvariants()
        let fresh = UnsafeMutablePointer<Slot>.allocate(capacity: Swift.max(16, capacity * 2))
        if let old = storage {
            // Safe: the initialized range is `queued` slots from `head`, wrapping at `capacity`:
            // its part up to the end of the old storage, then its part from the start. Each is
            // moved into raw memory at the front of the fresh storage, in order, and left raw in
            // the old, which is then freed without deinitializing anything.
            let first = Swift.min(queued, capacity - head)
            fresh.moveInitialize(from: old + head, count: first)
            (fresh + first).moveInitialize(from: old, count: queued - first)
            old.deallocate()
        }
        storage = fresh
        capacity = Swift.max(16, capacity * 2)
        head = 0
        checkInvariants()
    }

    /// Releases the queued jobs, if any, and frees the storage: the ring is then empty with
    /// capacity 0.
    @usableFromInline
    mutating func releaseStorage() {
        checkInvariants()
        guard let old = storage else { return }
        Self.free(old, capacity: capacity, head: head, queued: queued)
        storage = nil
        capacity = 0
        head = 0
        queued = 0
    }

    /// Releases the `queued` jobs from `head` in `storage` (`capacity` slots) and frees it.
    private static func free(_ storage: UnsafeMutablePointer<Slot>, capacity: Int, head: Int, queued: Int) {
        // Safe: the initialized range, as in `grow()`, is deinitialized (its jobs released) in
        // its two parts; then the memory, all raw, is freed.
        let first = Swift.min(queued, capacity - head)
        (storage + head).deinitialize(count: first)
        storage.deinitialize(count: queued - first)
        storage.deallocate()
    }
}
