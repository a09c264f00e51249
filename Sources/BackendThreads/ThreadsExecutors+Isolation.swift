#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TaskAPI

extension ThreadsDefaultExecutor {
    /// `true` on a worker of this executor's pool (C9.7).
    var isCurrent: Bool { ThreadContext.current.pool === core }
}

/// A serial executor is also a Swift `SerialExecutor` (C9.9): an actor whose `unownedExecutor`
/// it is runs its jobs one at a time on the pool, and `assumeIsolated` works inside them, since
/// `isIsolatingCurrentContext` answers from the thread running the drain. Swift jobs are plain
/// jobs of the executor's FIFO: no Dispatch and no other executor is involved.
extension ThreadsSerialExecutor: SerialExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        execute { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    func isIsolatingCurrentContext() -> Bool? {
        isCurrent
    }
}

extension NativeThread {
    /// An identifier of the calling thread, unique among live threads, never 0.
    static var currentID: UInt {
        #if canImport(Glibc)
        UInt(pthread_self())
        #else
        UInt(bitPattern: pthread_self())
        #endif
    }
}
