import BackendKit
import Dispatch
import ScheduleKit
import TaskAPI

/// A serial executor is also a Swift `SerialExecutor` (C9.9): an actor whose `unownedExecutor`
/// it is runs on its queue, and `assumeIsolated` works inside its jobs.
extension GCDSerialExecutor: SerialExecutor {
    /// `true` inside a job running on this executor's queue (C9.7).
    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == ObjectIdentifier(self) }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let ticket = SchedulePoint.fork(.lane(SchedulePoint.Object(self)), label: "GCD serial executor Swift job")
        queue.async { SchedulePoint.adopt(ticket) { job.runSynchronously(on: self.asUnownedSerialExecutor()) } }
    }

    func isIsolatingCurrentContext() -> Bool? {
        isCurrent
    }
}
