/// A job: what executors run.
typealias Job = @Sendable () -> Void

/// A FIFO of jobs in a growable ring buffer. Not thread-safe: its owner keeps it under a lock.
///
/// A popped slot is cleared at once, so the queue never keeps a job's captures alive after
/// handing the job out (C8.1).
struct JobQueue {
    /// A job in a struct: a closure stored in an array directly is kept at the most general
    /// abstraction, wrapped in a thunk (an allocation) on the way in and in another on the way
    /// out. In a struct it keeps its own.
    private struct Slot {
        var job: Job?
    }

    private var slots: [Slot]
    private var head = 0
    /// The number of queued jobs.
    private(set) var count = 0

    init() {
        slots = Array(repeating: Slot(), count: 16)
    }

    var isEmpty: Bool { count == 0 }

    /// Appends `job` at the tail.
    mutating func push(_ job: @escaping Job) {
        if count == slots.count { grow() }
        slots[(head + count) & (slots.count - 1)].job = job
        count += 1
    }

    /// Removes and returns the job at the head, or `nil` if the queue is empty.
    mutating func pop() -> Job? {
        guard count > 0 else { return nil }
        // Moved out with the slot, not copied: no retain and release of the job.
        var taken = Slot()
        swap(&taken, &slots[head])
        let job = taken.job
        head = (head + 1) & (slots.count - 1)
        count -= 1
        if count == 0 {
            head = 0
            // Gives back the memory of a burst once it has drained.
            if slots.count > 4_096 { slots = Array(repeating: Slot(), count: 16) }
        }
        return job
    }

    /// Doubles the capacity (always a power of two), keeping the FIFO order.
    private mutating func grow() {
        var larger = [Slot](repeating: Slot(), count: slots.count * 2)
        for index in 0..<count {
            larger[index] = slots[(head + index) & (slots.count - 1)]
        }
        slots = larger
        head = 0
    }
}
