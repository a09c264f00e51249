/// A pool of worker threads that wants to know when one of its workers blocks, so that it can
/// start a replacement while it is blocked (C6.4).
public protocol BlockingPool: AnyObject, Sendable {
    /// The calling worker is about to block.
    func willBlock()
    /// The calling worker's blocking call returned.
    func didUnblock()
}

/// Wraps a call that may block the calling thread. On a worker of a pool (`ThreadRuntime.pool`),
/// the pool counts the worker as blocked for the duration and may start a replacement (C6.4).
/// On any other thread it just calls `body`.
public func blockingCall<R>(_ body: () -> R) -> R {
    guard let pool = ThreadRuntime.current.pool else { return body() }
    pool.willBlock()
    defer { pool.didUnblock() }
    return body()
}
