import Dispatch
import Synchronization
import TaskAPI

/// What the jobs of a `serialJobs` race round saw: two at once (C7.2), each side's order (C7.2),
/// each job's runs (C7.3).
final class SerialTally: Sendable {
    typealias Loss = ProgramOperation.RaceRounds.Loss

    private let jobs: Int
    private let active = Atomic<Int>(0)
    private let overlaps = Atomic<Int>(0)
    private let runs = Atomic<Int>(0)
    private let order = PlainLocked<[[Int]]>([[], []])
    private let done = DispatchSemaphore(value: 0)

    init(jobs: Int) {
        self.jobs = jobs
    }

    /// Job `job` of `side` (0: the driver's, 1: the partner's) runs: it stays a little while, so
    /// that a second job let in beside it is seen.
    func run(side: Int, job: Int) {
        if active.add(1, ordering: .acquiringAndReleasing).newValue > 1 { overlaps.add(1, ordering: .relaxed) }
        for _ in 0..<64 { _ = active.load(ordering: .relaxed) }
        active.subtract(1, ordering: .acquiringAndReleasing)
        order.withLock { $0[side].append(job) }
        if runs.add(1, ordering: .acquiringAndReleasing).newValue == jobs { done.signal() }
    }

    /// Whether every job ran within `limit`.
    func wait(_ limit: Duration) -> Bool {
        done.wait(timeout: (Uptime.now + limit).dispatchTime) == .success
    }

    var ran: Int { runs.load(ordering: .acquiring) }

    /// What went wrong: jobs at once or out of order (C7.2), a job run twice (C7.3), then, if
    /// `complete` is false (not every job ran within the limit), the jobs never run (C7.3).
    func loss(_ index: Int, complete: Bool) -> Loss? {
        let perSide = jobs / 2
        let twice = overlaps.load(ordering: .acquiring)
        if twice > 0 {
            return Loss(
                round: index, rule: .c7_2, what: "a serial executor ran \(twice + 1) of its jobs at once while two threads handed it jobs",
                expected: "one job at a time", observed: "\(twice) jobs started while another ran")
        }
        let sides = order.withLock { $0 }
        for (side, seen) in sides.enumerated() {
            let who = side == 0 ? "the driver" : "the partner"
            if Set(seen).count < seen.count {
                return Loss(
                    round: index, rule: .c7_3, what: "a job \(who) handed a serial executor, beside another thread's, ran twice",
                    expected: "each job once", observed: "\(seen.prefix(24))")
            }
            if seen != seen.sorted() {
                return Loss(
                    round: index, rule: .c7_2, what: "the jobs \(who) handed a serial executor, beside another thread's, ran out of order",
                    expected: "0 to \(perSide - 1), in order", observed: "\(seen.prefix(24))")
            }
        }
        if !complete {
            return Loss(
                round: index, rule: .c7_3, what: "of \(jobs) jobs two threads handed one serial executor at once, \(ran) ran",
                expected: "every job runs", observed: "\(ran) ran within the limit")
        }
        return nil
    }
}
