import TaskAPI

/// A test backend that is another one (`forwardedTo`, any backend) but for the forms it writes
/// itself: its executors, cancellation sources and timers are the other's, and so is whether it
/// is schedule-instrumented (so its controlled runs take the same engine). `GCDForwarding` is
/// the same for GCD, by its concrete type.
protocol BackendForwarding: TaskBackend {
    var forwardedTo: any TaskBackend { get }
}

extension BackendForwarding {
    var defaultExecutor: any AsyncTaskExecutor { forwardedTo.defaultExecutor }
    var inlineExecutor: any AsyncTaskExecutor { forwardedTo.inlineExecutor }
    var isScheduleInstrumented: Bool { forwardedTo.isScheduleInstrumented }
    func makeSerialExecutor(label: String) -> any AsyncTaskExecutor { forwardedTo.makeSerialExecutor(label: label) }
    func makeCancellationSource() -> any CancellationSource { forwardedTo.makeCancellationSource() }
    func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable {
        forwardedTo.schedule(after: delay, job)
    }
}
