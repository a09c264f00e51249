import Dispatch
import Foundation
import Synchronization
import TaskAPI

/// A test executor: the backend's own (`base`), each of its jobs `jobs.delay` longer: a slow
/// but correct backend's executor. With `jobs.dropsAfter`, the jobs after that many (counted
/// over every executor sharing `jobs`) are dropped, never run: a backend that stops making
/// progress at a known moment (`jobs.lastStart`).
final class SlowExecutor: AsyncTaskExecutor {
    let base: any AsyncTaskExecutor
    let jobs: SlowJobs

    init(_ base: any AsyncTaskExecutor, jobs: SlowJobs = SlowJobs()) {
        self.base = base
        self.jobs = jobs
    }

    func execute(_ job: @escaping @Sendable () -> Void) {
        base.execute { [jobs] in
            guard jobs.start() else { return }
            usleep(jobs.microseconds)
            job()
        }
    }

    var isCurrent: Bool { base.isCurrent }
}

/// What the jobs of the `SlowExecutor`s sharing it do more than the backend's: each takes `delay`
/// longer; with `dropsAfter`, the jobs after that many are dropped. Counts the jobs started, and
/// when the last one that ran did.
final class SlowJobs: Sendable {
    let delay: Duration
    let dropsAfter: Int?
    /// `delay` for `usleep`.
    let microseconds: UInt32
    private let started = Atomic<Int>(0)
    private let lastStartNanoseconds = Atomic<UInt64>(0)

    init(delay: Duration = .milliseconds(2), dropsAfter: Int? = nil) {
        self.delay = delay
        self.dropsAfter = dropsAfter
        let (seconds, attoseconds) = delay.components
        microseconds = UInt32(seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
    }

    /// A job is about to run: `false` if it is to be dropped instead.
    func start() -> Bool {
        let number = started.add(1, ordering: .relaxed).newValue
        if let dropsAfter, number > dropsAfter { return false }
        lastStartNanoseconds.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
        return true
    }

    /// How many jobs ran (dropped ones not counted).
    var ran: Int { min(started.load(ordering: .relaxed), dropsAfter ?? .max) }

    /// When the last job that ran started, on the monotonic clock (nil: none ran).
    var lastStart: DispatchTime? {
        let nanoseconds = lastStartNanoseconds.load(ordering: .relaxed)
        return nanoseconds == 0 ? nil : DispatchTime(uptimeNanoseconds: nanoseconds)
    }
}
