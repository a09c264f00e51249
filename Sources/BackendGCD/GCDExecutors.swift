import BackendKit
import Dispatch
import ScheduleKit
import Synchronization
import TaskAPI

#if canImport(CDispatch)
import CDispatch
#endif

/// The default executor (C7.2): jobs run in parallel on Dispatch's global queue.
///
/// Jobs wait in a queue of the executor's own, drained by at most one block per processor on
/// the global queue: a push submits a drainer when fewer are running, and a drainer runs queued
/// jobs until the queue is empty, or, after `batch` jobs, queues itself again behind whatever
/// else waits on the global queue (serial queues, timers, other code), so that a steady stream
/// of jobs never holds Dispatch's threads for long. A burst of jobs costs Dispatch one block per
/// `batch` jobs, not one per job. A body that blocks in `wait()` while running here reports it (C6.4), and the executor
/// then starts a replacement worker on a fresh serial queue, which Dispatch backs with a new
/// thread at once; the global queue alone adds a thread only every half second or so.
final class GCDDefaultExecutor: KitQueueExecutor, @unchecked Sendable {
    // @unchecked: restated from `KitQueueExecutor`; every property is a `let`, of a Sendable type
    // but `rootQueue`, a Dispatch queue's pointer (see there).
    let jobs: GCDJobQueue
    /// The drainer, made a block once: Dispatch takes blocks, and a Swift closure passed to
    /// `async` is converted into a new heap block on every call (an allocation, a copy and a
    /// release); a block passed as a block is only retained.
    private let drain: @convention(block) @Sendable () -> Void
    /// The global queue, looked up once: each `DispatchQueue.global()` allocates a new wrapper.
    private let global = DispatchQueue.global()
    #if canImport(CDispatch)
    /// The same queue as Dispatch's C interface names it (`dispatch_get_global_queue` with the
    /// default priority is the root queue `DispatchQueue.global()` wraps), for `submitDrainer`.
    /// Dispatch's queues may be used from any thread, and a root queue lives as long as the
    /// process; a pointer is not `Sendable`, which this class restates by hand.
    private let rootQueue = dispatch_get_global_queue(Int(DISPATCH_QUEUE_PRIORITY_DEFAULT), 0)
    #endif

    /// The most jobs a drainer runs before it queues itself again.
    static let batch = 32

    /// At most `drainers` drainers run at once (one per processor, by the backend's default).
    init(maxBlockedThreads: Int, drainers: Int) {
        let jobs = GCDJobQueue(limit: maxBlockedThreads, drainers: drainers)
        let global = self.global
        self.jobs = jobs
        drain = { Self.drain(jobs, on: global) }
        super.init(runner: jobs)
    }

    /// One drainer's turn on a Dispatch thread.
    private static func drain(_ jobs: GCDJobQueue, on global: DispatchQueue) {
        guard jobs.drain(budget: batch) else { return }
        // Its budget ran out with jobs left: the thread goes back to Dispatch, the drainer (still
        // counted) to the end of the global queue.
        let ticket = SchedulePoint.fork(.now, label: "GCD drainer")
        global.async { SchedulePoint.adopt(ticket) { drain(jobs, on: global) } }
    }

    override func push(_ job: consuming JobRing.Slot) {
        let (replace, drainer) = jobs.push(job)
        if replace { jobs.startReplacement() }
        guard drainer else { return }
        // Under a controlled run the drainer is a hand-off to a Dispatch thread (a seat while it
        // runs); otherwise the block made once.
        if let ticket = SchedulePoint.fork(.now, label: "GCD drainer") {
            global.async { [drain] in SchedulePoint.adopt(ticket, drain) }
        } else {
            submitDrainer()
        }
    }

    /// Submits the drainer block to the global queue. Where Dispatch's C interface is importable
    /// (Linux), by the call the overlay's `async(execute:)` ends in, `dispatch_async`, without the
    /// overlay's steps before it: its tests of the group, QoS and flags arguments go through
    /// generic `SetAlgebra` and `Equatable` code in the standard library, about 170 instructions
    /// per hop, cold after an idle gap, all before the wake-up of a parked Dispatch thread
    /// (docs/BENCHMARKS.md, "The gcd parked hop").
    @inline(__always)
    private func submitDrainer() {
        #if canImport(CDispatch)
        dispatch_async(rootQueue, drain)
        #else
        global.async(execute: drain)
        #endif
    }
}

/// The queue of the default executor and its count of blocked and replacement workers.
final class GCDJobQueue: BlockingPool {
    private struct State: ~Copyable {
        /// Kept capacity: 1,024 slots once drained.
        var jobs = JobRing(keptCapacity: 1_024)
        var blocked = 0
        var replacements = 0
        /// Drainers submitted to the global queue and not yet ended.
        var drainers = 0
        /// The limit was hit and not yet reported (reported once per queue).
        var limitHit = false
        var limitReported = false

        var isEmpty: Bool { jobs.isEmpty }

        mutating func pop() -> JobRing.Slot {
            jobs.pop()
        }

        /// Claims a new replacement worker if fewer replacements run than workers are blocked,
        /// and fewer than `limit`; at the limit, notes it once for the caller to report.
        mutating func needsReplacement(limit: Int) -> Bool {
            guard blocked > replacements, !isEmpty else { return false }
            guard replacements < limit else {
                if !limitReported {
                    limitReported = true
                    limitHit = true
                }
                return false
            }
            replacements += 1
            return true
        }

        /// Whether the caller must report the limit now (once).
        mutating func takeLimitHit() -> Bool {
            defer { limitHit = false }
            return limitHit
        }
    }

    private let state = Locked(State())
    #if PlantedBugs
    /// The planted bug the backend was made with (`GCDPlantedBug`).
    private let plantedBugs = PlantedBugSwitch()
    #endif
    /// Drainers polling the queue length before they end (`drain`); any of them may.
    private let pollers: QueuePollers
    /// At most this many replacement workers run at once (`BlockingThreads`).
    let limit: Int

    /// At most this many drainers run at once (one per processor).
    let maxDrainers: Int

    /// How long a drainer that has run a stream of jobs polls the queue before it ends: about
    /// 1 us on the project's machines, with no yielding phase (`drain`).
    static let streamPolls = 2_000

    init(limit: Int, drainers: Int) {
        self.limit = limit
        maxDrainers = Swift.max(1, drainers)
        pollers = QueuePollers(limit: maxDrainers, busyPolls: Self.streamPolls, yieldingPolls: 0)
    }

    /// Pops the oldest job and mirrors the new length (holding the lock).
    private func pop(_ state: inout State) -> JobRing.Slot {
        let slot = state.pop()
        pollers.mirror(state.jobs.count)
        return slot
    }

    /// Pops the oldest job; if there is none and `endIfEmpty`, the calling drainer ends (one
    /// critical section, so a push after it submits another).
    private func take(endIfEmpty: Bool) -> JobRing.Slot {
        #if PlantedBugs
        if endIfEmpty, plantedBugs.isOn(GCDPlantedBug.drainerEndsInTwoSections) { return takeEndingApart() }
        #endif
        return state.withLock { state -> JobRing.Slot in
            let slot = pop(&state)
            if slot.isEmpty, endIfEmpty { state.drainers -= 1 }
            return slot
        }
    }

    #if PlantedBugs
    /// The planted bug `drainerEndsInTwoSections`: `take(endIfEmpty: true)` in two critical
    /// sections, the pop and the drainer's end.
    private func takeEndingApart() -> JobRing.Slot {
        let slot = state.withLock { pop(&$0) }
        if slot.isEmpty { state.withLock { $0.drainers -= 1 } }
        return slot
    }
    #endif

    /// Queues `job`: `replace` if the caller must start a replacement worker, `drainer` if it
    /// must submit a drainer (fewer than the most are running; the count includes it now).
    func push(_ job: consuming JobRing.Slot) -> (replace: Bool, drainer: Bool) {
        var job = job
        let (replace, report, drainer) = state.withLock { state in
            state.jobs.push(moving: &job)
            pollers.mirror(state.jobs.count)
            let drainer = state.drainers < maxDrainers
            if drainer { state.drainers += 1 }
            return (state.needsReplacement(limit: limit), state.takeLimitHit(), drainer)
        }
        if report { reportLimit() }
        return (replace, drainer)
    }

    private func reportLimit() {
        BackendDiagnostics.report(.init(backend: "gcd", limit: limit))
    }

    /// A drainer's turn on a Dispatch thread: runs queued jobs, oldest first, until the queue is
    /// empty, then `false`: the critical section that finds it empty ends the drainer, so a push
    /// after it submits another. `true` after `budget` jobs: the drainer is still counted, and
    /// the caller must submit it again.
    ///
    /// A drainer that has run two jobs or more in this turn (a stream: a fan-out's producer
    /// pushing while it runs) polls the queue length for about 1 us before it ends. Ending
    /// costs the next push a new drainer block, which wakes a parked Dispatch thread: when the
    /// drainers empty the queue just faster than a producer fills it, that was one wake-up per
    /// job, and a fan-out's bimodal slow mode. A turn of one job (a hop, an `await` round trip)
    /// ends at once, giving its thread back to Dispatch, which may need it to run what the job
    /// resumed (docs/BENCHMARKS.md has the measurements).
    func drain(budget: Int) -> Bool {
        let runtime = ThreadRuntime.current
        let outer = runtime.pool
        runtime.pool = self
        defer { runtime.pool = outer }
        var ran = 0
        while ran < budget {
            let stream = ran >= 2
            // Each slot in a `let` of its own, run as its last use: a `var` reassigned after
            // polling was copied to run it (a retain and a release of its job's context).
            let first = take(endIfEmpty: !stream)
            if !first.isEmpty {
                first.run(on: runtime)
            } else {
                guard stream else { return false }
                _ = pollers.poll()
                let polled = take(endIfEmpty: true)
                guard !polled.isEmpty else { return false }
                polled.run(on: runtime)
            }
            ran += 1
        }
        return true
    }

    /// A worker blocks in `wait()`: start a replacement if jobs are waiting for a thread.
    func willBlock() {
        let (replace, report) = state.withLock { state in
            state.blocked += 1
            return (state.needsReplacement(limit: limit), state.takeLimitHit())
        }
        if report { reportLimit() }
        if replace { startReplacement() }
    }

    func didUnblock() {
        state.withLock { $0.blocked -= 1 }
    }

    /// Starts a worker on a fresh serial queue (a new thread at once) that runs queued jobs
    /// until the queue is empty or there are more replacements than blocked workers.
    func startReplacement() {
        let ticket = SchedulePoint.fork(.now, label: "GCD replacement worker")
        DispatchQueue(label: "BackendGCD.replacement").async { SchedulePoint.adopt(ticket) { self.runReplacement() } }
    }

    private func runReplacement() {
        while true {
            let job = state.withLock { state -> JobRing.Slot in
                if state.replacements <= state.blocked {
                    let slot = pop(&state)
                    if !slot.isEmpty { return slot }
                }
                state.replacements -= 1
                return JobRing.Slot()
            }
            guard !job.isEmpty else { return }
            run(job)
        }
    }

    private func run(_ job: consuming JobRing.Slot) {
        let runtime = ThreadRuntime.current
        let outer = runtime.pool
        runtime.pool = self
        job.run(on: runtime)
        runtime.pool = outer
    }
}

/// A serial executor (C7.2): a serial Dispatch queue, FIFO, one job at a time.
final class GCDSerialExecutor: AsyncTaskExecutor {
    let queue: DispatchQueue
    /// Marks the queue as this executor's, for `isCurrent` (GCDExecutors+Isolation.swift).
    let key = DispatchSpecificKey<ObjectIdentifier>()

    init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: ObjectIdentifier(self))
    }

    func execute(_ job: @escaping @Sendable () -> Void) {
        guard let ticket = SchedulePoint.fork(.lane(SchedulePoint.Object(self)), label: "GCD serial executor job") else {
            return queue.async(execute: job)
        }
        // Released on its seat, not when Dispatch frees the block (`SchedulePoint.adopting`).
        queue.async(execute: SchedulePoint.adopting(ticket, job))
    }
}
