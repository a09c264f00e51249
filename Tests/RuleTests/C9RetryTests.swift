import TaskAPI
import Testing

/// C9.4's backoff values: arithmetic of TaskAPI, the same for every backend (retry itself is
/// checked by the rule suite, RuleSuiteTests).
@Suite("C9.4 Retry")
struct C9RetryTests {
    @Test("C9.4 exponential backoff grows by its multiplier up to its maximum")
    func exponentialBackoff() {
        let backoff = Backoff.exponential(initial: .milliseconds(10), multiplier: 2, maximum: .milliseconds(50))
        #expect((1...5).map { backoff.delay(beforeRetry: $0) } == [10, 20, 40, 50, 50].map { .milliseconds($0) })
        #expect(Backoff.fixed(.seconds(1)).delay(beforeRetry: 7) == .seconds(1))
        #expect(Backoff.none.delay(beforeRetry: 3) == .zero)
    }
}
