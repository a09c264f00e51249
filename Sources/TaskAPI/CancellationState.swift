/// The state of one cancellation source as a small value (C4.1, C4.2): a backend keeps it under
/// its own lock and runs the handlers it returns after releasing the lock.
///
/// It records what was requested, not who is still running handlers: C4.1 also asks that a
/// `cancel()` racing the first one return only after the first one's handlers ran (a linked
/// source is then cancelled too). `StandardCancellationSource` adds that; a backend using this
/// type directly must make its later `cancel()` calls wait the same way, except a call from
/// inside a handler on the thread running them, which returns at once.
public struct CancellationState<Handler> {
    public private(set) var isCancellationRequested = false
    private var handlers: [UInt64: Handler] = [:]
    private var nextID: UInt64 = 0

    @inlinable
    public init() {}

    /// Stores `handler` and returns its id, or `nil` if cancellation was already requested:
    /// then the caller runs the handler now (C4.2).
    public mutating func register(_ handler: Handler) -> UInt64? {
        guard !isCancellationRequested else { return nil }
        let id = nextID
        nextID += 1
        handlers[id] = handler
        return id
    }

    /// Forgets the handler with `id` (C4.2: a disposed registration never runs and is released).
    public mutating func dispose(_ id: UInt64) {
        handlers[id] = nil
    }

    /// Requests cancellation. Returns the handlers to run, in registration order, the first time;
    /// `nil` afterwards (C4.1: idempotent; the caller that got `nil` must still wait until the
    /// first caller's handlers ran before returning, see above).
    public mutating func cancel() -> [Handler]? {
        guard !isCancellationRequested else { return nil }
        isCancellationRequested = true
        defer { handlers = [:] }
        return handlers.sorted { $0.key < $1.key }.map(\.value)
    }
}

extension CancellationState: Sendable where Handler: Sendable {}
