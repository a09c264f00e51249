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

    /// What went wrong, once every job ran.
    func loss(_ index: Int) -> Loss? {
        let perSide = jobs / 2
        let twice = overlaps.load(ordering: .acquiring)
        if twice > 0 {
            return Loss(round: index, rule: .c7_2, what: "a serial executor ran \(twice + 1) of its jobs at once while two threads handed it jobs",
                            expected: "one job at a time", observed: "\(twice) jobs started while another ran")
        }
        let sides = order.withLock { $0 }
        for (side, seen) in sides.enumerated() where seen != Array(0..<perSide) {
            let who = side == 0 ? "the driver" : "the partner"
            let rule: Rule = seen.count == perSide && Set(seen).count == perSide ? .c7_2 : .c7_3
            return Loss(round: index, rule: rule, what: "the jobs \(who) handed a serial executor, beside another thread's, ran out of order or not once each",
                            expected: "0 to \(perSide - 1), in order, once each", observed: "\(seen.prefix(24))")
        }
        return nil
    }
}
