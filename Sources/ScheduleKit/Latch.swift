/// A one-way gate threads can wait on: closed until `open()`, then open for good. Built on
/// `ConditionLock`, so a controlled run schedules it like any other wait.
public final class Latch: Sendable {
    public init() {}

    private let state = ConditionLock(false, label: "Latch")

    public func open() {
        state.withLock { $0 = true }
        state.broadcast()
    }

    /// `true` if the latch opened before `deadline` (monotonic nanoseconds).
    public func wait(until deadline: UInt64) -> Bool {
        state.lock()
        defer { state.unlock() }
        while !state.guarded {
            if !state.wait(until: deadline) { return state.guarded }
        }
        return true
    }
}
