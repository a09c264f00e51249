import BackendGCD
import TaskAPI

/// A test-only outside backend with a task class of its own (`OwnTask`, over GCD's tasks), whose
/// task-returning forms and combinators hand GCD their inputs: a task of its own class unwrapped
/// (the fast path), a task of another class as it is (GCD serves any class, contract 1.4), except
/// in the form `bug` names, which reads a task of another class once, as it stands, and takes a
/// pending one as cancelled: a fallback written for the inputs of another class a backend of 1.3
/// expected (a task made completed, `completed(_:)` of a user's own type), a bug of contract 1.4
/// with one still pending, which the rule suite's checks of 1.3 (tasks of its own class only) do
/// not see. No crash, no hang: a wrong answer, for `ForeignInputCheckTests`.
///
/// Each bug is in one form, so the rule suite's check of that form's rule with tasks of another
/// class must catch it under that rule, and the other foreign-input checks must pass it.
struct ForeignSnapshotBackend: GCDForwarding {
    enum Bug: String, CaseIterable, Sendable {
        /// `continueWithTask`, so also TaskAPI's `flatMap`, `recoverTask`, `finallyTask` and
        /// `runTask`, written over it (C2.6).
        case taskReturningForms = "task-returning-forms"
        /// `whenAllSettled` (C5.2).
        case whenAllSettled = "when-all-settled"
        /// `race` and `any` (C5.3).
        case raceAndAny = "race-and-any"
    }

    let bug: Bug
    let base = GCDBackend()

    init(_ bug: Bug) {
        self.bug = bug
    }

    var name: String { "foreign-snapshot-\(bug.rawValue)" }
    func makeSource<T: Sendable>(of type: T.Type) -> any CompletionSource<T> { OwnSource(base.sourceWithoutOrigin(of: type), owner: self) }

    func whenAllSettled<T: Sendable>(_ tasks: [any AsyncTask<T>]) -> any AsyncTask<[Completion<T>]> {
        own(base.whenAllSettled(tasks.map { engineTask($0, buggy: bug == .whenAllSettled) }))
    }

    func race<T: Sendable>(_ tasks: [any AsyncTask<T>]) -> any AsyncTask<T> {
        own(base.race(tasks.map { engineTask($0, buggy: bug == .raceAndAny) }))
    }

    func any<T: Sendable>(_ tasks: [any AsyncTask<T>]) -> any AsyncTask<T> {
        own(base.any(tasks.map { engineTask($0, buggy: bug == .raceAndAny) }))
    }

    /// `task` as GCD is handed it: a task of this backend's class unwrapped, one of another class
    /// as it is, or, in the buggy form, as the outcome it has now.
    func engineTask<T: Sendable>(_ task: any AsyncTask<T>, buggy: Bool) -> any AsyncTask<T> {
        if let own = task as? OwnTask<T> { return own.wrapped }
        guard buggy else { return task }
        // The bug under test: a task of another class read once; a pending one taken as cancelled.
        return base.completed(task.completion ?? .cancelled)
    }

    /// A task GCD made, as a task of this backend's class.
    func own<T: Sendable>(_ task: any AsyncTask<T>) -> any AsyncTask<T> { OwnTask(task, owner: self) }
}

extension ForeignSnapshotBackend {
    /// The backend's task class: a GCD task, served through it, with this backend as its
    /// `backend` and every task derived from it of this class too.
    final class OwnTask<Success: Sendable>: AsyncTask {
        let wrapped: any AsyncTask<Success>
        private let owner: ForeignSnapshotBackend

        init(_ wrapped: any AsyncTask<Success>, owner: ForeignSnapshotBackend) {
            self.wrapped = wrapped
            self.owner = owner
        }

        var backend: any TaskBackend { owner }
        var status: TaskStatus { wrapped.status }
        var completion: Completion<Success>? { wrapped.completion }

        func whenComplete(on executor: any AsyncTaskExecutor, _ body: @escaping @Sendable (Completion<Success>) -> Void) {
            wrapped.whenComplete(on: executor, body)
        }

        @available(*, noasync, message: "wait() blocks the thread; in async code use 'await task.value'")
        @discardableResult
        func wait() -> Completion<Success> { wrapped.wait() }

        @available(*, noasync, message: "wait(timeout:) blocks the thread; in async code use 'await task.value'")
        @discardableResult
        func wait(timeout: Duration) -> Completion<Success>? { wrapped.wait(timeout: timeout) }

        var value: Success {
            get async throws { try await wrapped.value }
        }

        @discardableResult
        func continueWith<U: Sendable>(
            on executor: any AsyncTaskExecutor, token: CancellationToken, _ body: @escaping @Sendable (Completion<Success>) throws -> U
        ) -> any AsyncTask<U> {
            owner.own(wrapped.continueWith(on: executor, token: token, body))
        }

        @discardableResult
        func continueWithTask<U: Sendable>(
            on executor: any AsyncTaskExecutor, token: CancellationToken,
            _ body: @escaping @Sendable (Completion<Success>) throws -> any AsyncTask<U>
        ) -> any AsyncTask<U> {
            let owner = self.owner
            return owner.own(
                wrapped.continueWithTask(on: executor, token: token) { completion in
                    owner.engineTask(try body(completion), buggy: owner.bug == .taskReturningForms)
                })
        }
    }

    /// The writing side of an `OwnTask`: GCD's source underneath, so that a source released
    /// pending fails its task `abandoned` (C8.3).
    final class OwnSource<Success: Sendable>: CompletionSource {
        private let base: any CompletionSource<Success>
        let task: any AsyncTask<Success>

        init(_ base: any CompletionSource<Success>, owner: ForeignSnapshotBackend) {
            self.base = base
            task = OwnTask(base.task, owner: owner)
        }

        @discardableResult
        func tryComplete(_ completion: Completion<Success>) -> Bool { base.tryComplete(completion) }

        @discardableResult
        func tryStart() -> Bool { base.tryStart() }
    }
}
