import Testing
import TaskAPI

@Suite("C9.4 Retry")
struct C9RetryTests {
    @Test("C9.4 retry stops at the first success, or after attempts with the last attempt's outcome", arguments: Backends.all)
    func attempts(_ c: BackendCase) throws {
        let backend = c.backend
        let tries = Counter()
        let third = backend.retry(attempts: 5) { _ -> Int in
            let attempt = tries.increment()
            if attempt < 3 { throw TestError(code: attempt) }
            return attempt
        }
        #expect(try third.settle()?.get() == 3)
        #expect(tries.count == 3)

        let failures = Counter()
        let exhausted = backend.retry(attempts: 3) { _ in
            backend.failed(TestError(code: failures.increment()), as: Int.self)
        }
        #expect(exhausted.settle()?.testError == TestError(code: 3), "the last attempt's error")
        #expect(failures.count == 3)

        let declined = Counter()
        let stopped = backend.retry(attempts: 5, while: { attempt, error in (error as? TestError)?.code != 1 }) { _ -> Int in
            throw TestError(code: declined.increment())
        }
        #expect(stopped.settle()?.testError == TestError(code: 1))
        #expect(declined.count == 1, "shouldRetry said no")

        let cancelledAttempts = Counter()
        let cancelledAttempt = backend.retry(attempts: 5) { _ -> Int in
            cancelledAttempts.increment()
            throw CancellationError()
        }
        #expect(cancelledAttempt.settle()?.isCancelled == true)
        #expect(cancelledAttempts.count == 1, "a cancelled attempt is not retried")

        let once = Counter()
        #expect(backend.retry(attempts: 0) { _ -> Int in throw TestError(code: once.increment()) }.settle()?.testError != nil)
        #expect(once.count == 1, "attempts below 1 are taken as 1")
    }

    @Test("C9.4 retry waits its backoff between attempts, and a token cancelled meanwhile cancels at once", arguments: Backends.all)
    func backoffAndToken(_ c: BackendCase) throws {
        let backend = c.backend
        let start = ContinuousClock.now
        let tries = Counter()
        let slow = backend.retry(attempts: 3, backoff: .fixed(.milliseconds(30))) { _ -> Int in
            throw TestError(code: tries.increment())
        }
        #expect(slow.settle()?.testError == TestError(code: 3))
        #expect(ContinuousClock.now - start >= .milliseconds(60), "two waits of 30 ms")

        let cancellation = backend.makeCancellationSource()
        let failedOnce = backend.makeSource(of: Void.self)
        let waiting = backend.retry(attempts: 3, backoff: .fixed(.seconds(60)), token: cancellation.token) { _ -> Int in
            failedOnce.trySucceed()
            throw TestError(code: 1)
        }
        #expect(failedOnce.task.settle() != nil)
        #expect(waiting.wait(timeout: .milliseconds(20)) == nil, "waits its backoff")
        cancellation.cancel()
        #expect(waiting.settle()?.isCancelled == true, "cancelled at once, not after 60 s")
    }

    @Test("C9.4 exponential backoff grows by its multiplier up to its maximum")
    func exponentialBackoff() {
        let backoff = Backoff.exponential(initial: .milliseconds(10), multiplier: 2, maximum: .milliseconds(50))
        #expect((1...5).map { backoff.delay(beforeRetry: $0) } == [10, 20, 40, 50, 50].map { .milliseconds($0) })
        #expect(Backoff.fixed(.seconds(1)).delay(beforeRetry: 7) == .seconds(1))
        #expect(Backoff.none.delay(beforeRetry: 3) == .zero)
    }
}
