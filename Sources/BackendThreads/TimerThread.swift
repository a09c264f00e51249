import BackendKit
import ScheduleKit
import TaskAPI

/// The timer of a threads backend: one thread sleeping on a condition variable until the earliest
/// deadline of a min-heap, then handing the due job to the worker pool (`schedule(after:)`,
/// used by `delay`, `timeout` and `cancel(after:)`).
///
/// Jobs never run on the timer thread itself, so a slow or blocking job cannot hold up other
/// timers. The thread starts with the first timer. When the backend is released, `stop()` lets
/// the thread exit as soon as no timer is pending (pending ones still fire, on time).
final class TimerThread: Sendable {
    let core: TimerCore

    init(poolExecutor: ThreadsDefaultExecutor) {
        core = TimerCore(poolExecutor: poolExecutor)
    }

    deinit {
        core.stop()
    }

    /// Runs `job` on the pool no earlier than `delay` from now, unless disposed first.
    func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable {
        core.schedule(at: MonotonicClock.deadline(after: delay), job)
    }
}

/// A pending timer's handle; disposing it drops the job and releases its captures (C5.4, C8.1).
/// It holds the timer weakly: a handle kept around does not keep the backend's threads alive.
struct TimerRegistration: Disposable {
    weak var core: TimerCore?
    let id: UInt64

    func dispose() {
        core?.cancel(id)
    }
}

/// The timer thread's state and loop. The thread holds this object, and this object holds the
/// pool handle, so the pool outlives every pending timer.
final class TimerCore: Sendable {
    private struct Entry {
        let deadline: UInt64
        let id: UInt64

        /// Earlier deadline first; equal deadlines in scheduling order.
        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : id < other.id
        }
    }

    private struct State {
        var heap = TimerHeap()
        /// The jobs of pending timers; a heap entry whose id is missing here was disposed.
        var jobs: [UInt64: @Sendable () -> Void] = [:]
        var nextID: UInt64 = 0
        var started = false
        var stopping = false
        /// The deadline the thread sleeps until (`.max`: no timer), or `nil` while it is awake.
        var sleepingUntil: UInt64?
    }

    private let poolExecutor: ThreadsDefaultExecutor
    private let state = ConditionLock(State(), label: "threads timer")
    /// Opens once the timer was stopped and its thread (if any) has exited.
    let exited = Latch()

    init(poolExecutor: ThreadsDefaultExecutor) {
        self.poolExecutor = poolExecutor
    }

    func schedule(at deadline: UInt64, _ job: @escaping @Sendable () -> Void) -> any Disposable {
        let (id, start) = state.withLock { state -> (UInt64, Bool) in
            let id = state.nextID
            state.nextID += 1
            state.jobs[id] = job
            state.heap.insert(Entry(deadline: deadline, id: id))
            if let sleeping = state.sleepingUntil, deadline < sleeping { self.state.signal() }
            if state.started { return (id, false) }
            state.started = true
            return (id, true)
        }
        if start { startThread() }
        return TimerRegistration(core: self, id: id)
    }

    func cancel(_ id: UInt64) {
        let job = state.withLock { state -> (@Sendable () -> Void)? in
            guard let job = state.jobs.removeValue(forKey: id) else { return nil }
            // Disposed entries are skipped lazily; compact when they are most of the heap.
            if state.heap.count > 64 && state.heap.count > 2 * state.jobs.count {
                state.heap.removeAll { state.jobs[$0.id] == nil }
            }
            return job
        }
        // The job's captures are released here, outside the lock: their deinits may schedule.
        _ = job
    }

    func stop() {
        let idle = state.withLock { state -> Bool in
            state.stopping = true
            return !state.started
        }
        state.signal()
        if idle { exited.open() }
    }

    private func startThread() {
        let spawned = NativeThread.spawn(name: "threads-timer") { [self] in
            runLoop()
            exited.open()
        }
        if !spawned {
            // Try again with the next timer; this one waits until then.
            state.withLock { $0.started = false }
        }
    }

    private func runLoop() {
        state.lock()
        defer { state.unlock() }
        while true {
            while let first = state.guarded.heap.first, state.guarded.jobs[first.id] == nil {
                _ = state.guarded.heap.popFirst()
            }
            guard let first = state.guarded.heap.first else {
                if state.guarded.stopping { return }
                state.guarded.sleepingUntil = .max
                state.wait()
                state.guarded.sleepingUntil = nil
                continue
            }
            if first.deadline <= MonotonicClock.now {
                _ = state.guarded.heap.popFirst()
                let job = state.guarded.jobs.removeValue(forKey: first.id)
                state.unlock()
                if let job { poolExecutor.execute(job) }
                state.lock()
                continue
            }
            state.guarded.sleepingUntil = first.deadline
            _ = state.wait(until: first.deadline)
            state.guarded.sleepingUntil = nil
        }
    }

    /// A binary min-heap of timer entries.
    private struct TimerHeap {
        private var entries: [Entry] = []

        var count: Int { entries.count }
        var first: Entry? { entries.first }

        mutating func insert(_ entry: Entry) {
            entries.append(entry)
            siftUp(entries.count - 1)
        }

        mutating func popFirst() -> Entry? {
            guard let first = entries.first else { return nil }
            let last = entries.removeLast()
            if !entries.isEmpty {
                entries[0] = last
                siftDown(0)
            }
            return first
        }

        /// Removes every entry matching `shouldRemove` and restores the heap order.
        mutating func removeAll(where shouldRemove: (Entry) -> Bool) {
            entries.removeAll(where: shouldRemove)
            var index = entries.count / 2
            while index > 0 {
                index -= 1
                siftDown(index)
            }
        }

        private mutating func siftUp(_ start: Int) {
            var child = start
            while child > 0 {
                let parent = (child - 1) / 2
                guard entries[child].precedes(entries[parent]) else { return }
                entries.swapAt(child, parent)
                child = parent
            }
        }

        private mutating func siftDown(_ start: Int) {
            var parent = start
            while true {
                var smallest = parent
                let left = 2 * parent + 1
                let right = left + 1
                if left < entries.count && entries[left].precedes(entries[smallest]) { smallest = left }
                if right < entries.count && entries[right].precedes(entries[smallest]) { smallest = right }
                if smallest == parent { return }
                entries.swapAt(parent, smallest)
                parent = smallest
            }
        }
    }
}
