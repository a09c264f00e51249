/// An executor made of a closure (C9.7): `ClosureExecutor { job in myQueue.push(job) }`.
///
/// `execute` calls `submit` with the job on the calling thread; `submit` must run the job exactly
/// once, now or later (C7.3). `isCurrent` calls the `isCurrent` closure if one was given, and
/// otherwise answers `false`. Safe to use from any thread if the closures are.
public final class ClosureExecutor: AsyncTaskExecutor {
    private let submit: @Sendable (@escaping @Sendable () -> Void) -> Void
    private let current: (@Sendable () -> Bool)?

    /// An executor that hands every job to `submit`; `isCurrent`, if given, answers "am I on
    /// this executor?".
    public init(isCurrent: (@Sendable () -> Bool)? = nil, _ submit: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.submit = submit
        current = isCurrent
    }

    public func execute(_ job: @escaping @Sendable () -> Void) {
        submit(job)
    }

    public var isCurrent: Bool { current?() ?? false }
}
