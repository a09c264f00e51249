import Foundation
import TaskAPI

/// A test backend's timer that fires `job` after `delay`, then every 10 ms, on a thread of its
/// own (not Dispatch's global queue, which the suite's other tests may keep busy), until
/// `stopped()` answers `true`. Its `Disposable` does nothing: only `stopped` ends it. For backends
/// whose timers must keep logging events (a livelock's progress), `LivelockBackend` and
/// PhaseWatchTests' refiring-timers backend.
func refiringTimer(
    after delay: Duration, until stopped: @escaping @Sendable () -> Bool, _ job: @escaping @Sendable () -> Void
) -> any Disposable {
    let (seconds, attoseconds) = delay.components
    let thread = Thread {
        Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
        while !stopped() {
            job()
            Thread.sleep(forTimeInterval: 0.01)
        }
    }
    thread.start()
    return NoopDisposable()
}
