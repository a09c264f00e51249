import TaskAPI

/// What every backend on the kit hands out the same way: the kit's sources, tasks and inline
/// executor, and TaskAPI's cancellation source on the backend's own timer. A backend may still
/// write its own.
extension KitBackend {
    /// No default executor known to be a kit queue executor.
    public var unretainedDefaultQueue: Unmanaged<KitQueueExecutor>? { nil }

    /// The kit's inline executor (C7.2, C2.7).
    public var inlineExecutor: any AsyncTaskExecutor { InlineExecutor.shared }

    /// A `KitSource`: a released source fails its pending task with `TaskError.abandoned` (C8.3).
    /// Disfavored, as the requirement it implements: a call picks TaskAPI's
    /// `makeSource(of:fileID:line:)`, which records the source's origin in debug builds.
    @_disfavoredOverload
    public func makeSource<T: Sendable>(of type: T.Type) -> any CompletionSource<T> {
        KitSource<T>(owner: self)
    }

    /// A completed `KitTask`, with no source (C1.4).
    public func completed<T: Sendable>(_ completion: Completion<T>) -> any AsyncTask<T> {
        KitTask<T>(owner: self, completed: completion)
    }

    /// TaskAPI's `StandardCancellationSource`, whose `cancel(after:)` uses `schedule(after:_:)`
    /// (C4.1, C4.2, C4.6).
    public func makeCancellationSource() -> any CancellationSource {
        let timer: StandardCancellationSource.DelayScheduler = { [self] delay, job in schedule(after: delay, job) }
        #if PlantedBugs
        return StandardCancellationSource(plantedBugs: plantedBugs, timer: timer)
        #else
        return StandardCancellationSource(timer: timer)
        #endif
    }
}
