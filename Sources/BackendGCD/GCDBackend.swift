import Dispatch
import TaskAPI

/// The contract on Dispatch.
///
/// - Default executor: Dispatch's global queue, with replacement workers for bodies blocked in
///   `wait()` (C6.4).
/// - Serial executors: serial Dispatch queues.
/// - Inline executor: the calling thread, through a per-thread trampoline (C2.7).
/// - Timers: `DispatchSourceTimer` on the global queue.
/// - Main executor: `DispatchQueue.main` (GCDBackend+Main.swift, C9.8); serial executors are also
///   Swift `SerialExecutor`s (GCDExecutors+Isolation.swift, C9.9).
/// - Task state: a `Locked` (a sanitizer-visible `Mutex`) around `TaskStateMachine`; no queue hop to complete or register.
public final class GCDBackend: TaskBackend {
    public let name = "gcd"
    private let defaultPool = GCDDefaultExecutor()
    private let inline = GCDInlineExecutor()

    public init() {}

    /// A backend shared by everyone who needs just one.
    public static let shared = GCDBackend()

    public var defaultExecutor: any Executor { defaultPool }
    public var inlineExecutor: any Executor { inline }

    public func makeSerialExecutor(label: String) -> any Executor {
        GCDSerialExecutor(label: label)
    }

    public func makeSource<T: Sendable>(of type: T.Type) -> any CompletionSource<T> {
        GCDTask<T>(owner: self)
    }

    public func completed<T: Sendable>(_ completion: Completion<T>) -> any AsyncTask<T> {
        GCDTask<T>(owner: self, completed: completion.erased)
    }

    public func makeCancellationSource() -> any CancellationSource {
        StandardCancellationSource { [self] delay, job in schedule(after: delay, job) }
    }

    public func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable {
        GCDTimer(after: delay, job)
    }
}

/// A one-shot timer. Cancelling the Dispatch source releases its handler at once (C5.5, C8.1).
final class GCDTimer: Disposable {
    // DispatchSourceTimer is not annotated Sendable, but Dispatch sources are thread-safe:
    // `cancel()` may be called from any thread, and nothing else touches it after `init`.
    private nonisolated(unsafe) let source: DispatchSourceTimer

    init(after delay: Duration, _ job: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeTimerSource(queue: .global())
        source.schedule(deadline: .now() + dispatchInterval(delay))
        source.setEventHandler { [source] in
            job()
            source.cancel()
        }
        source.activate()
    }

    func dispose() {
        source.cancel()
    }
}
