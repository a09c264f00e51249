/// The cancelling side of cooperative cancellation (C4), after .NET's CancellationTokenSource.
///
/// Hand `token` to the work that should stop; call `cancel()` to ask it to. Cancellation is a
/// request: code observes it through the token (`checkpoint()`, `isCancellationRequested`,
/// handlers), and tasks whose token is cancelled before their body starts never run it (C4.3).
public protocol CancellationSource: AnyObject, Sendable {
    /// `true` once `cancel()` was called; never goes back to `false` (C4.1).
    var isCancellationRequested: Bool { get }

    /// Requests cancellation. Idempotent and thread-safe (C4.1). Handlers registered before
    /// this call run exactly once, inside the first call, in registration order (C4.2).
    func cancel()

    /// Requests cancellation after `delay`, on the backend's timer (C4.6). Does nothing if the
    /// source is already cancelled when the delay expires.
    func cancel(after delay: Duration)

    /// Registers `handler` to run exactly once when cancellation is requested (C4.2). If it
    /// already was, `handler` runs before `register` returns. Disposing the returned
    /// registration before cancellation means the handler never runs and is released.
    func register(_ handler: @escaping @Sendable () -> Void) -> any Disposable
}

extension CancellationSource {
    /// A token observing this source.
    @inlinable
    public var token: CancellationToken { CancellationToken(source: self) }
}

/// The observing side of cooperative cancellation (C4): a small value to pass along.
/// `CancellationToken.none` can never be cancelled and costs nothing to check.
public struct CancellationToken: Sendable {
    @usableFromInline let source: (any CancellationSource)?

    @inlinable
    public init(source: any CancellationSource) {
        self.source = source
    }

    @inlinable
    init() {
        self.source = nil
    }

    /// A token that is never cancelled. Made in place where it is used: a stored `static let`
    /// is reached through its lazy initializer (`swift_once`), and its value was retained and
    /// released around each use (about 25 instructions per `run` body started, callgrind).
    @inlinable
    public static var none: CancellationToken { CancellationToken() }

    /// `false` for `.none`: such a token can never be cancelled.
    @inlinable
    public var canBeCancelled: Bool { source != nil }

    /// `true` once cancellation was requested on the source (C4.1).
    @inlinable
    public var isCancellationRequested: Bool { source?.isCancellationRequested ?? false }

    /// Throws `CancellationError` once cancellation was requested (C4.4); a body that lets it
    /// escape completes its task as cancelled (C3.2).
    @inlinable
    public func checkpoint() throws {
        if isCancellationRequested { throw CancellationError() }
    }

    /// Registers `handler` on the source (C4.2); see `CancellationSource.register(_:)`.
    /// On `.none` the handler is dropped at once and never runs.
    @inlinable
    public func register(_ handler: @escaping @Sendable () -> Void) -> any Disposable {
        guard let source else { return NoopDisposable() }
        return source.register(handler)
    }
}
