import TaskAPI

/// A task of a class no backend knows: a conformer of `AsyncTask` the conformance library wrote,
/// as a user may write one (a task type of their own that adds a property), or as another
/// backend's task is to the backend under test. It wraps a task of the backend under test and
/// serves every requirement through it, so its outcomes are that task's, but it is another class:
/// a combinator that casts its inputs to its own task class, or takes a fast path keyed on the
/// class it saw last, meets it as a user's program would (C2.6, C5.1-C5.3, contract 1.4). The
/// rule suite's foreign-input checks hand it to the backend (`RuleSuite.ForeignInputs`), and so
/// do generated programs, for the combinator inputs and the tasks returned to continuations and
/// `runTask` that their seed marks foreign (`ForeignStream`, `foreign t3` in a step's text).
///
/// Its `backend` is the wrapped task's (the backend under test), as a user's conformer built on
/// that backend answers: a backend may not take "my backend" for "my class". The tasks it derives
/// (`continueWith`, `continueWithTask`, and TaskAPI's defaults over them: `map`, `flatMap`, ...)
/// are foreign tasks too, so that a form written over them, such as `whenAll(a, b, ...)`'s
/// `map` of each input, hands the backend foreign tasks again.
final class ForeignTask<Success: Sendable>: AsyncTask {
    let wrapped: any AsyncTask<Success>

    init(_ wrapped: any AsyncTask<Success>) {
        self.wrapped = wrapped
    }

    var backend: any TaskBackend { wrapped.backend }
    var status: TaskStatus { wrapped.status }
    var completion: Completion<Success>? { wrapped.completion }

    func whenComplete(on executor: any AsyncTaskExecutor, _ body: @escaping @Sendable (Completion<Success>) -> Void) {
        wrapped.whenComplete(on: executor, body)
    }

    @available(*, noasync, message: "wait() blocks the thread; in async code use 'await task.value'")
    @discardableResult
    func wait() -> Completion<Success> {
        wrapped.wait()
    }

    @available(*, noasync, message: "wait(timeout:) blocks the thread; in async code use 'await task.value'")
    @discardableResult
    func wait(timeout: Duration) -> Completion<Success>? {
        wrapped.wait(timeout: timeout)
    }

    var value: Success {
        get async throws { try await wrapped.value }
    }

    @discardableResult
    func continueWith<U: Sendable>(
        on executor: any AsyncTaskExecutor, token: CancellationToken, _ body: @escaping @Sendable (Completion<Success>) throws -> U
    ) -> any AsyncTask<U> {
        ForeignTask<U>(wrapped.continueWith(on: executor, token: token, body))
    }

    @discardableResult
    func continueWithTask<U: Sendable>(
        on executor: any AsyncTaskExecutor, token: CancellationToken,
        _ body: @escaping @Sendable (Completion<Success>) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        ForeignTask<U>(wrapped.continueWithTask(on: executor, token: token, body))
    }
}

extension ForeignTask {
    /// `task` as a program hands it the backend: wrapped in a `ForeignTask` when its step marks it
    /// `foreign` (`ForeignStream`), else as it is.
    static func handed(_ task: any AsyncTask<Success>, foreign: Bool) -> any AsyncTask<Success> {
        foreign ? ForeignTask(task) : task
    }
}
