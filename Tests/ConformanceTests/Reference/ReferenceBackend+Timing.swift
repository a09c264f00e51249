import Synchronization
import TaskAPI

/// The reference backend's own `delay`, `race`, `timeout(after:)` and `value`: the same as
/// TaskAPI's defaults, plus the switches of the timing, combinator and awaiting mutants.
extension ReferenceBackend {
    func delay(_ delay: Duration, token: CancellationToken) -> any AsyncTask<Void> {
        let source = makeSource(of: Void.self)
        let token = mutation == .delayIgnoresToken ? CancellationToken.none : token
        if token.isCancellationRequested {
            source.tryCancel()
            return source.task
        }
        let timer = schedule(after: delay) { source.trySucceed(()) }
        let registration = token.register {
            if source.tryCancel() { timer.dispose() }
        }
        source.task.whenComplete(on: inlineExecutor) { _ in registration.dispose() }
        return source.task
    }

    func race<T: Sendable>(_ tasks: [any AsyncTask<T>]) -> any AsyncTask<T> {
        if tasks.isEmpty {
            return completed(mutation == .raceEmptyWrong ? .cancelled : .failure(TaskError.emptyInput("race")))
        }
        let source = makeSource(of: T.self)
        for task in tasks {
            task.whenComplete(on: inlineExecutor) { source.tryComplete($0) }
        }
        return source.task
    }
}

extension ReferenceTask {
    func timeout(after delay: Duration) -> any AsyncTask<T> {
        let backend = owner
        let source = backend.makeSource(of: T.self)
        let error: any Error = backend.mutation == .timeoutWrongError ? CancellationError() : TaskError.timedOut(delay)
        let failsTimedTask = backend.mutation == .timeoutCompletesTimedTask
        let timer = backend.schedule(after: delay) { [weak self] in
            if failsTimedTask { self?.tryFail(TaskError.timedOut(delay)) }
            source.tryFail(error)
        }
        whenComplete(on: backend.inlineExecutor) { completion in
            if source.tryComplete(completion) { timer.dispose() }
        }
        return source.task
    }

    var value: T {
        get async throws {
            if let completion { return try completion.get() }
            let resumer = ReferenceResumer<T>()
            let ignoresCancellation = owner.mutation == .awaitIgnoresCancellation
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    resumer.install(continuation)
                    whenComplete(on: owner.inlineExecutor) { resumer.resume(with: $0) }
                }
            } onCancel: {
                if !ignoresCancellation { resumer.resume(with: .cancelled) }
            }
        }
    }
}

/// Resumes one continuation once, whichever of completion and cancellation comes first, even
/// before the continuation is installed.
final class ReferenceResumer<T: Sendable>: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<T, any Error>?, early: Completion<T>?, done: Bool)>((nil, nil, false))

    func install(_ continuation: CheckedContinuation<T, any Error>) {
        let early: Completion<T>? = state.withLock { state in
            if let early = state.early, !state.done { state.done = true; return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: Result { try early.get() }) }
    }

    func resume(with completion: Completion<T>) {
        let continuation: CheckedContinuation<T, any Error>? = state.withLock { state in
            guard !state.done else { return nil }
            guard let continuation = state.continuation else {
                if state.early == nil { state.early = completion }
                return nil
            }
            state.done = true
            state.continuation = nil
            return continuation
        }
        continuation?.resume(with: Result { try completion.get() })
    }
}
