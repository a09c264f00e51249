import ScheduleKit
import TaskAPI

extension ProgramExecution {
    /// The harness's own bounded wait on a task a step made (an async loop's end, a long chain's
    /// last link, a nested wait's top, a probed combinator): `task.wait(timeout: limit)`, which may
    /// return nil only once `limit` has passed (C6.2). One that returns nil sooner is logged
    /// (`waitReturnedEarly`, which `TimingChecks` reports under C6.2) and the wait goes on until
    /// `limit` has passed, so that the step's own check judges what the task did, not what the wait
    /// said: a backend whose `wait(timeout:)` gives up early is told so, not that a continuation
    /// never ran. Time is `MonotonicClock`'s, the run's clock on a seat of a seated run.
    func boundedWait<T>(_ task: any AsyncTask<T>, limit: Duration, step: Int) -> Completion<T>? {
        let start = MonotonicClock.now
        let deadline = start + MonotonicClock.nanoseconds(limit)
        if let completion = task.wait(timeout: limit) { return completion }
        var now = MonotonicClock.now
        guard now < deadline else { return nil }
        log.append(.waitReturnedEarly(step: step, limit: MonotonicClock.nanoseconds(limit), elapsed: now - start))
        // A wait that gives up early may do so every time: wait again until the deadline (a
        // backend that keeps this spinning is already reported).
        while now < deadline {
            if let completion = task.wait(timeout: .nanoseconds(Int64(deadline - now))) { return completion }
            now = MonotonicClock.now
        }
        return nil
    }
}
