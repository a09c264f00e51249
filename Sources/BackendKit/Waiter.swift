import Synchronization
import TaskAPI

/// A caller blocked in `wait()` (C6.1, C6.2, C6.3): spins briefly on an atomic flag, then sleeps
/// on a condition variable until the task's completion stores the outcome. It is registered as a
/// continuation node without an executor, so waking it allocates nothing and a timed-out wait can
/// find and remove it.
///
/// On a pool worker the whole wait, spin included, is reported to the pool at once, so a
/// replacement worker can start while this one spins (C6.4): under load a spin can be descheduled,
/// and nested waits must not add up such delays before the work they wait for gets a thread.
final class Waiter: ContinuationNode {
    private let slot = ConditionLock<AnyCompletion?>(nil)
    private let done = Atomic(false)

    /// The registration that wakes this waiter.
    var job: Job { Job(waker: self) }

    func run(_ outcome: AnyCompletion) {
        slot.withLock { $0 = outcome }
        slot.signal()
        done.store(true, ordering: .releasing)
    }

    /// Blocks until woken, or until `deadline` (monotonic nanoseconds) if there is one; `nil`
    /// if the deadline passed first.
    func wait(until deadline: UInt64?) -> AnyCompletion? {
        blockingCall {
            _ = Spin.until(polls: 512, busy: 512) { done.load(ordering: .acquiring) }
            slot.lock()
            defer { slot.unlock() }
            while true {
                if let completion = slot.guarded { return completion }
                if let deadline {
                    if !slot.wait(until: deadline) { return slot.guarded }
                } else {
                    slot.wait()
                }
            }
        }
    }
}
