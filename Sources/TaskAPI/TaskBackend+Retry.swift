/// How long `retry` waits before each new attempt (C9.4).
public struct Backoff: Sendable, Equatable {
    private let initial: Duration
    private let multiplier: Double
    private let maximum: Duration

    /// No wait: the next attempt starts as soon as the previous one failed.
    public static let none = Backoff(initial: .zero, multiplier: 1, maximum: .zero)

    /// The same wait before every retry (google/promises' `delay`).
    public static func fixed(_ delay: Duration) -> Backoff {
        Backoff(initial: delay, multiplier: 1, maximum: delay)
    }

    /// `initial` before the first retry, multiplied by `multiplier` before each next one, never
    /// more than `maximum`. A `multiplier` below 1 is taken as 1.
    public static func exponential(initial: Duration, multiplier: Double = 2, maximum: Duration = .seconds(60)) -> Backoff {
        Backoff(initial: initial, multiplier: max(1, multiplier), maximum: maximum)
    }

    /// The wait before retry number `retry` (1 before the second attempt, 2 before the third, ...).
    public func delay(beforeRetry retry: Int) -> Duration {
        var delay = initial
        for _ in 1..<max(1, retry) {
            if delay >= maximum { break }
            delay = delay * multiplier
        }
        return min(delay, maximum)
    }
}

extension TaskBackend {
    /// Runs `body` until it succeeds, at most `attempts` times in all (google/promises' `retry`,
    /// whose `attempts` counts the retries only: its `attempts: n` is `attempts: n + 1` here) (C9.4).
    ///
    /// - Each attempt runs on `executor` (default: the default executor). The body returns the
    ///   attempt's value; a body returning a task (google/promises' promise) is `retryTask`.
    /// - After a failure, if attempts remain and `shouldRetry(attempt, error)` says so (default:
    ///   always), the next attempt starts after `backoff.delay(beforeRetry: attempt)`.
    /// - The result is the first success, or the outcome of the last attempt made. An attempt
    ///   that ends cancelled is not retried: the result is cancelled.
    /// - `token` is passed to every attempt; once it is cancelled no new attempt starts: cancelled
    ///   while waiting between attempts, the result completes cancelled at once; cancelled while
    ///   an attempt runs, that attempt sees it through its token, and the result is cancelled
    ///   unless that attempt succeeds.
    /// - `attempts` below 1 is taken as 1.
    public func retry<T: Sendable>(
        attempts: Int,
        backoff: Backoff = .none,
        on executor: (any AsyncTaskExecutor)? = nil,
        token: CancellationToken = .none,
        while shouldRetry: @escaping @Sendable (_ attempt: Int, _ error: any Error) -> Bool = { _, _ in true },
        _ body: @escaping @Sendable (CancellationToken) throws -> T
    ) -> any AsyncTask<T> {
        retryTask(attempts: attempts, backoff: backoff, on: executor, token: token, while: shouldRetry) { token in
            completed(Completion(catching: { try body(token) }))
        }
    }

    /// `retry` for a body that takes no token (C9.4).
    public func retry<T: Sendable>(
        attempts: Int,
        backoff: Backoff = .none,
        on executor: (any AsyncTaskExecutor)? = nil,
        token: CancellationToken = .none,
        while shouldRetry: @escaping @Sendable (_ attempt: Int, _ error: any Error) -> Bool = { _, _ in true },
        _ body: @escaping @Sendable () throws -> T
    ) -> any AsyncTask<T> {
        retry(attempts: attempts, backoff: backoff, on: executor, token: token, while: shouldRetry) { (_: CancellationToken) in
            try body()
        }
    }

    /// `retry` for a body that returns a task: each attempt's outcome is that task's (C9.4, C2.6).
    public func retryTask<T: Sendable>(
        attempts: Int,
        backoff: Backoff = .none,
        on executor: (any AsyncTaskExecutor)? = nil,
        token: CancellationToken = .none,
        while shouldRetry: @escaping @Sendable (_ attempt: Int, _ error: any Error) -> Bool = { _, _ in true },
        _ body: @escaping @Sendable (CancellationToken) throws -> any AsyncTask<T>
    ) -> any AsyncTask<T> {
        let attempts = max(1, attempts)
        let executor = executor ?? defaultExecutor
        let inline = inlineExecutor
        @Sendable func attempt(_ number: Int) -> any AsyncTask<T> {
            runTask(on: executor, token: token, body).continueWithTask(on: inline, token: .none) { outcome in
                guard case .failure(let error) = outcome, number < attempts else { return completed(outcome) }
                if token.isCancellationRequested { return completed(.cancelled) }
                guard shouldRetry(number, error) else { return completed(outcome) }
                let wait = backoff.delay(beforeRetry: number)
                if wait <= .zero { return attempt(number + 1) }
                return delay(wait, token: token).continueWithTask(on: inline, token: .none) { waited in
                    waited.isSuccess ? attempt(number + 1) : completed(.cancelled)
                }
            }
        }
        return attempt(1)
    }

    /// `retryTask` for a body that takes no token (C9.4).
    public func retryTask<T: Sendable>(
        attempts: Int,
        backoff: Backoff = .none,
        on executor: (any AsyncTaskExecutor)? = nil,
        token: CancellationToken = .none,
        while shouldRetry: @escaping @Sendable (_ attempt: Int, _ error: any Error) -> Bool = { _, _ in true },
        _ body: @escaping @Sendable () throws -> any AsyncTask<T>
    ) -> any AsyncTask<T> {
        retryTask(attempts: attempts, backoff: backoff, on: executor, token: token, while: shouldRetry) { (_: CancellationToken) in
            try body()
        }
    }

    @available(*, unavailable, message: "the body returns a task: use retryTask, which unwraps it (C9.4)")
    public func retry<T: Sendable>(
        attempts: Int,
        backoff: Backoff = .none,
        on executor: (any AsyncTaskExecutor)? = nil,
        token: CancellationToken = .none,
        while shouldRetry: @escaping @Sendable (_ attempt: Int, _ error: any Error) -> Bool = { _, _ in true },
        _ body: @escaping @Sendable (CancellationToken) throws -> any AsyncTask<T>
    ) -> any AsyncTask<T> {
        retryTask(attempts: attempts, backoff: backoff, on: executor, token: token, while: shouldRetry, body)
    }

    @available(*, unavailable, message: "the body returns a task: use retryTask, which unwraps it (C9.4)")
    public func retry<T: Sendable>(
        attempts: Int,
        backoff: Backoff = .none,
        on executor: (any AsyncTaskExecutor)? = nil,
        token: CancellationToken = .none,
        while shouldRetry: @escaping @Sendable (_ attempt: Int, _ error: any Error) -> Bool = { _, _ in true },
        _ body: @escaping @Sendable () throws -> any AsyncTask<T>
    ) -> any AsyncTask<T> {
        retryTask(attempts: attempts, backoff: backoff, on: executor, token: token, while: shouldRetry, body)
    }
}
