import Synchronization

/// Schedule points inside backend operations, as loom and Shuttle place
/// them in their synchronization primitives.
///
/// A backend calls `SchedulePoint.reach()` where a thread running one of its operations could
/// lose the processor to another in a way that matters: before the critical sections of
/// `complete` and `register`, and between a critical section and the hand-off that follows it.
/// When nothing is installed, `reach()` is one relaxed load and a branch that is always taken
/// the same way. When a checker is installed (the conformance harness installs one while a
/// controlled run is active), the thread may be parked there until the checker's schedule lets
/// it go on; a controlled run can then interleave another thread's operation inside this one,
/// and replay that interleaving from its seed.
///
/// **Never call `reach()` holding a lock** (or anything another thread may wait for): a thread
/// parked at a point holding one stops the run. A point between two critical sections is the
/// place for one; a point inside one is a deadlock.
///
/// The handler runs on the thread that reached the point, and decides what to do with it: the
/// harness's parks only its own driver threads; a point reached on any other thread (an
/// executor's, a timer's) returns at once. One handler is installed at a time.
public enum SchedulePoint {
    /// Whether a handler is installed: the only thing `reach()` reads when none is.
    @usableFromInline static let active = Atomic<Bool>(false)
    /// In a class: a closure stored in a generic container is re-abstracted on the way in and
    /// out, and each re-install of a handler read back would wrap it once more.
    private final class Handler: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
    private static let handler = Locked<Handler?>(nil)

    /// A schedule point: returns at once unless a handler is installed, which may park the
    /// calling thread here for a while. Must not be called holding a lock.
    @inlinable @inline(__always)
    public static func reach() {
        if active.load(ordering: .relaxed) { reached() }
    }

    @usableFromInline @inline(never)
    static func reached() {
        handler.withLock { $0 }?.run()
    }

    /// Installs `handler`, replacing any installed one: from now on, every `reach()` calls it.
    public static func install(_ handler: @escaping @Sendable () -> Void) {
        let box = Handler(handler)
        self.handler.withLock { $0 = box }
        active.store(true, ordering: .releasing)
    }

    /// Removes the installed handler: `reach()` is a no-op again.
    public static func uninstall() {
        active.store(false, ordering: .releasing)
        handler.withLock { $0 = nil }
    }
}
