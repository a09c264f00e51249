import Conformance
import TaskAPI

// The helpers the rule suite shares with the tests that stay here (backend-specific ones).
typealias Counter = RuleSuite.Counter
typealias Recorder = RuleSuite.Recorder
typealias Unsynchronized = RuleSuite.Unsynchronized

extension AsyncTask {
    /// Waits for the outcome up to `timeout` (10 s); `nil` means the task hung. A synchronous
    /// function, so that the exit tests' async bodies, which run in a child process of their
    /// own, may block in it (`wait` is unavailable from async code, C6.1).
    func settle(within timeout: Duration = .seconds(10)) -> Completion<Success>? {
        wait(timeout: timeout)
    }
}
