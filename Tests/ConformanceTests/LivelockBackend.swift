import Foundation
import Synchronization
import TaskAPI

/// A test-only instrumented backend that livelocks, for `SeatedPhaseCapTests`: a `RelayBackend`
/// of jobs underneath (on seats, its relay never lets a phase become quiescent), whose timers
/// fire again and again, every 10 ms, on a thread of their own that is no seat of a seated run
/// (events forever: progress for a native phase's watch), and whose sources drop every
/// completion (lost: a `wait()` on their task never returns), until `stop()`, which ends the
/// relay and the refiring and cancels every source's task for real, so that the threads it
/// blocked end.
final class LivelockBackend: TaskBackend {
    private let base = RelayBackend(.jobs)
    private let stopped = Atomic(false)
    /// Cancels each source's task for real (`stop()`).
    private let cancels = Mutex<[@Sendable () -> Void]>([])

    var name: String { "livelock" }
    var isScheduleInstrumented: Bool { true }
    var defaultExecutor: any AsyncTaskExecutor { base.defaultExecutor }
    var inlineExecutor: any AsyncTaskExecutor { base.inlineExecutor }
    func makeSerialExecutor(label: String) -> any AsyncTaskExecutor { base.makeSerialExecutor(label: label) }
    func makeCancellationSource() -> any CancellationSource { base.makeCancellationSource() }

    func makeSource<T: Sendable>(of type: T.Type) -> any CompletionSource<T> {
        let source = base.makeSource(of: type)
        cancels.withLock { $0.append { source.tryCancel() } }
        return CompletionDroppingSource(source)
    }

    /// The job fires after `delay`, then every 10 ms, on a thread of its own until `stop()`.
    func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable {
        refiringTimer(after: delay, until: { [self] in stopped.load(ordering: .acquiring) }, job)
    }

    /// Ends the relay and the timers' refiring, and cancels every source's task.
    func stop() {
        base.stop()
        stopped.store(true, ordering: .releasing)
        for cancel in cancels.withLock({ $0 }) { cancel() }
    }
}

/// A source whose completions are lost: its task stays pending (until the backend's `stop()`).
private final class CompletionDroppingSource<Success: Sendable>: CompletionSource {
    let base: any CompletionSource<Success>

    init(_ base: any CompletionSource<Success>) {
        self.base = base
    }

    var task: any AsyncTask<Success> { base.task }
    func tryComplete(_ completion: Completion<Success>) -> Bool { true }
    func tryStart() -> Bool { base.tryStart() }
}
