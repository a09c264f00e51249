/// Something that runs jobs (C7.1). Users may implement it; every backend accepts any `AsyncTaskExecutor`
/// wherever it takes one, and runs continuations registered with it through `execute` (C2.5).
///
/// An implementation must run each job it is given exactly once (C7.3). It may run the job
/// before `execute` returns (an inline executor) or later on another thread.
public protocol AsyncTaskExecutor: AnyObject, Sendable {
    /// Runs `job` exactly once, now or later, on a thread of the executor's choosing.
    func execute(_ job: @escaping @Sendable () -> Void)

    /// `true` when called from a job this executor is running: "am I on this executor?" (C9.7).
    /// Never blocks. The default answers `false`: an executor that cannot tell says no. Every
    /// default, serial and main executor of this package's backends can tell; an inline executor
    /// has no thread of its own and answers `false`.
    var isCurrent: Bool { get }
}

extension AsyncTaskExecutor {
    /// `false`: this executor cannot tell whether the caller runs one of its jobs (C9.7).
    public var isCurrent: Bool { false }
}

/// A handle whose `dispose()` undoes a registration: a cancellation handler, a timer.
/// Disposing twice, or after the registration fired, does nothing.
public protocol Disposable: Sendable {
    func dispose()
}

/// A `Disposable` that does nothing: what registering on a token that can never be cancelled returns.
public struct NoopDisposable: Disposable {
    public init() {}
    public func dispose() {}
}
