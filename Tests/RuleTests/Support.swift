import Conformance
import TaskAPI

// The helpers the rule suite shares with the tests that stay here (backend-specific ones).
typealias Counter = RuleSuite.Counter
typealias Recorder = RuleSuite.Recorder
typealias Unsynchronized = RuleSuite.Unsynchronized

extension AsyncTask {
    /// Waits for the outcome up to 10 s; `nil` means the task hung.
    func settle() -> Completion<Success>? {
        wait(timeout: .seconds(10))
    }
}
