import Foundation

/// Threads of the test backends' own (`LoopBackend`'s jobs, and the jobs of the reference's and
/// `LoopBackend`'s timers, which wait on `OwnTimers`): a job goes to an idle thread, or to a new
/// one when none is idle; a thread idle for a second ends. No bound: a body blocked in a nested
/// wait, or never returning, holds only its own thread.
///
/// Not Dispatch's pools, which every suite of the test process shares: the global queue's has a
/// few threads per processor, and on Linux grows by about one a second while they are blocked;
/// the serial queues' (overcommit) pool stops at 255 threads. Bodies the checks block there made
/// other suites' jobs and timers wait for seconds (docs/CONFORMANCE.md, "Known limits").
final class OwnThreads: @unchecked Sendable {
    // @unchecked Sendable: every stored var is touched only with `condition` held.
    static let shared = OwnThreads()

    private let condition = NSCondition()
    /// Jobs not taken yet, oldest from `head` on.
    private var jobs: [(@Sendable () -> Void)?] = []
    private var head = 0
    /// Threads waiting for a job, and how many of them were promised one (signalled).
    private var idle = 0
    private var wakeups = 0

    /// How long an idle thread waits for a job before it ends.
    private static let idleTimeout: TimeInterval = 1

    /// Runs `job` on one of the pool's threads, soon: an idle one, or a new one.
    func execute(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        if idle > wakeups {
            wakeups += 1
            condition.signal()
            condition.unlock()
            return
        }
        condition.unlock()
        let thread = Thread { [self] in work() }
        // What Dispatch's threads have on Linux (the default pthread stack): the reference's
        // inline chains, trampolined, need little, but a mutant that recurses needs a stack
        // deep enough to be told from a correct one (C2.7).
        thread.stackSize = 8 << 20
        thread.start()
    }

    private func work() {
        while let job = next() {
            job()
        }
    }

    /// The oldest job, waiting up to `idleTimeout` for one; `nil` when the thread ends.
    private func next() -> (@Sendable () -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        while head == jobs.count {
            idle += 1
            let signalled = condition.wait(until: Date(timeIntervalSinceNow: Self.idleTimeout))
            idle -= 1
            if wakeups > 0 {
                // Promised a job (it may be taken already by a thread that just finished one: then
                // this one waits again).
                wakeups -= 1
            } else if !signalled {
                return nil
            }
        }
        let job = jobs[head]
        // Released with the slot: a job's captures go when it ran (C8.1).
        jobs[head] = nil
        head += 1
        if head == jobs.count {
            jobs.removeAll(keepingCapacity: true)
            head = 0
        }
        return job
    }
}
