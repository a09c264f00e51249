/// Something that runs jobs (C7.1). Users may implement it; every backend accepts any `Executor`
/// wherever it takes one, and runs continuations registered with it through `execute` (C2.5).
///
/// An implementation must run each job it is given exactly once (C7.3). It may run the job
/// before `execute` returns (an inline executor) or later on another thread.
public protocol Executor: AnyObject, Sendable {
    /// Runs `job` exactly once, now or later, on a thread of the executor's choosing.
    func execute(_ job: @escaping @Sendable () -> Void)
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
