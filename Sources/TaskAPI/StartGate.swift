internal import ScheduleKit
import Synchronization

/// Decides, once, whether a body starts or its task is cancelled (C4.3), for the default `run`
/// and `continueWith` algorithms.
///
/// With a token that can be cancelled, the gate registers a handler that cancels the task at
/// once if the body has not started; whichever of the handler and the body's job claims the
/// gate first wins, so a body never starts after its task was cancelled, and a started body
/// is never cut short by the token (it observes the token itself).
public final class StartGate: Sendable {
    private struct State {
        var claimed = false
        var registration: (any Disposable)?
    }

    private let state: Locked<State>

    private init() {
        state = Locked(State())
    }

    /// A gate for `source` under `token`, or `nil` when `token` can never be cancelled (no cost).
    public static func make<T>(for source: some CompletionSource<T>, token: CancellationToken) -> StartGate? {
        guard token.canBeCancelled else { return nil }
        let gate = StartGate()
        // Both weak: a task nobody can observe any more needs no cancelling, and a strong
        // reference would be a cycle whenever the task keeps its token (C8.2).
        let registration = token.register { [weak gate, weak source] in
            guard let gate, let source, gate.claim() else { return }
            source.tryCancel()
        }
        gate.keep(registration)
        return gate
    }

    /// `true` exactly once: for the first of the body's job and the token handler to ask.
    private func claim() -> Bool {
        let registration: (any Disposable)? = state.withLock { state in
            if state.claimed { return nil }
            state.claimed = true
            defer { state.registration = nil }
            return state.registration ?? NoopDisposable()
        }
        registration?.dispose()
        return registration != nil
    }

    private func keep(_ registration: any Disposable) {
        let late = state.withLock { state -> Bool in
            if state.claimed { return true }
            state.registration = registration
            return false
        }
        if late { registration.dispose() }
    }
}

extension Optional where Wrapped == StartGate {
    /// Claims the right to start the body of `source`'s task: `false` if the token's handler won,
    /// if the token is cancelled by now (then `source` is cancelled), or if `source` is no longer
    /// pending. The token is checked after the claim, so a cancellation requested before the body
    /// starts always wins, even while its handlers are still running on another thread (C4.3).
    @inlinable
    public func start<S: CompletionSource>(_ source: S, token: CancellationToken) -> Bool {
        if let gate = self, !gate.claimForBody() { return false }
        if token.isCancellationRequested {
            source.tryCancel()
            return false
        }
        return source.tryStart()
    }

    /// Starts the body if `start` allows, and completes `source` with its outcome (C3.1, C3.2).
    @inlinable
    public func runBody<S: CompletionSource>(
        on source: S,
        token: CancellationToken,
        _ body: () throws -> S.Success
    ) {
        guard start(source, token: token) else { return }
        source.tryComplete(Completion(catching: body))
    }
}

extension StartGate {
    /// Claims the gate for the body's job; `false` if the token's handler won. A backend that
    /// starts bodies without going through `start(_:token:)` calls this, then checks the token.
    public func claimForBody() -> Bool { claim() }
}
