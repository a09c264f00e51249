import Synchronization
import TaskAPI

/// A user-written executor (C2.5, C7.1): counts the jobs it receives and marks the thread while
/// it runs one, so a body can tell which executor runs it.
public final class CountingExecutor: AsyncTaskExecutor {
    public let id: Int
    private let target: any AsyncTaskExecutor
    private let received = Atomic(0)

    public init(id: Int, target: any AsyncTaskExecutor) {
        self.id = id
        self.target = target
    }

    /// Jobs handed to `execute` so far.
    public var jobsReceived: Int { received.load(ordering: .relaxed) }

    public func execute(_ job: @escaping @Sendable () -> Void) {
        received.add(1, ordering: .relaxed)
        let id = self.id
        target.execute {
            let outer = ThreadInfo.countingMarker
            ThreadInfo.countingMarker = id + 1
            job()
            ThreadInfo.countingMarker = outer
        }
    }
}
