import Dispatch
import ScheduleKit
import TaskAPI

/// Any `DispatchQueue` as an `AsyncTaskExecutor` (C9.7): HNTask's `HNDispatchQueueExecutor`, FATask's
/// `startWithDispatchQueue:`. Jobs are handed to the queue with `async`; a serial queue runs them
/// in order, one at a time, a concurrent one in parallel. Usable with every backend.
///
/// It lives here, not in TaskAPI, so that the contract imports no scheduler: the threads backend
/// must never load Dispatch, and nothing in TaskAPI may make it.
public final class DispatchQueueExecutor: AsyncTaskExecutor {
    /// The queue jobs are handed to.
    public let queue: DispatchQueue
    private let key = DispatchSpecificKey<ObjectIdentifier>()

    /// An executor over `queue`. It marks the queue with a specific key of its own, to answer
    /// `isCurrent`.
    public init(_ queue: DispatchQueue) {
        self.queue = queue
        queue.setSpecific(key: key, value: ObjectIdentifier(self))
    }

    /// Under a controlled run, a job is a hand-off in the queue's lane (`SchedulePoint.fork`):
    /// the executor cannot tell a serial queue from a concurrent one, and a lane is right for
    /// the serial ones (the main queue among them); jobs of a concurrent queue then take turns.
    /// The job is released on its seat (`SchedulePoint.adopting`), not when Dispatch frees the
    /// block.
    public func execute(_ job: @escaping @Sendable () -> Void) {
        guard let ticket = SchedulePoint.fork(.lane(SchedulePoint.Object(queue)), label: "DispatchQueueExecutor job") else {
            return queue.async(execute: job)
        }
        queue.async(execute: SchedulePoint.adopting(ticket, job))
    }

    /// `true` inside a job running on the queue (or on a queue targeting it) (C9.7).
    public var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == ObjectIdentifier(self) }
}
