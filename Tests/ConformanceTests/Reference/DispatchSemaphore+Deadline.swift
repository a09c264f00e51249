import Dispatch

extension DispatchSemaphore {
    /// Waits for a signal until `deadline` has passed by `DispatchTime`'s own clock: `.success`
    /// if signalled, `.timedOut` only once `DispatchTime.now()` is at or past `deadline` (C6.2).
    ///
    /// `wait(timeout:)` alone can time out early on Linux: Dispatch turns the deadline into a
    /// wall-clock time for `sem_timedwait` (the wall clock's now plus what is left by the
    /// monotonic one), so a thread preempted between the two reads, or a step of the wall clock,
    /// ends the wait before its deadline. Conformance caught such a wait of the plug-in backend
    /// returning nil after 551us of 882us under the thread sanitizer.
    func wait(past deadline: DispatchTime) -> DispatchTimeoutResult {
        while wait(timeout: deadline) == .timedOut {
            if DispatchTime.now() >= deadline { return .timedOut }
        }
        return .success
    }
}
