import BackendGCD
import TaskAPI

/// A test backend that is GCD but for the forms it writes itself (a combinator, a task class of
/// its own): its executors, cancellation sources and timers are GCD's, forwarded to `base`.
protocol GCDForwarding: TaskBackend {
    var base: GCDBackend { get }
}

extension GCDForwarding {
    var defaultExecutor: any AsyncTaskExecutor { base.defaultExecutor }
    var inlineExecutor: any AsyncTaskExecutor { base.inlineExecutor }
    func makeSerialExecutor(label: String) -> any AsyncTaskExecutor { base.makeSerialExecutor(label: label) }
    func makeCancellationSource() -> any CancellationSource { base.makeCancellationSource() }
    func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable { base.schedule(after: delay, job) }
}
