internal import ScheduleKit
import Synchronization

extension AsyncTask {
    /// Default `value`: a checked continuation resumed by a `whenComplete` on the inline executor,
    /// or by the awaiting Swift task's cancellation, whichever comes first (C6.5, C4.7).
    @_disfavoredOverload
    public var value: Success {
        get async throws {
            if let completion { return try completion.get() }
            let resumer = Resumer<Success>()
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    resumer.install(continuation)
                    whenComplete(on: backend.inlineExecutor) { resumer.resume(with: $0) }
                }
            } onCancel: {
                resumer.resume(with: .cancelled)
            }
        }
    }
}

/// Resumes one checked continuation exactly once, whichever of completion and cancellation
/// arrives first, even if cancellation arrives before the continuation exists.
final class Resumer<Success: Sendable>: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<Success, any Error>)
        case early(Completion<Success>)
        case done
    }

    private let state = Locked(State.idle)

    func install(_ continuation: CheckedContinuation<Success, any Error>) {
        let early: Completion<Success>? = state.withLock { state in
            if case .early(let completion) = state {
                state = .done
                return completion
            }
            state = .waiting(continuation)
            return nil
        }
        if let early { continuation.resume(with: Result { try early.get() }) }
    }

    func resume(with completion: Completion<Success>) {
        let continuation: CheckedContinuation<Success, any Error>? = state.withLock { state in
            switch state {
            case .idle:
                state = .early(completion)
                return nil
            case .waiting(let continuation):
                state = .done
                return continuation
            case .early, .done:
                return nil
            }
        }
        continuation?.resume(with: Result { try completion.get() })
    }
}
