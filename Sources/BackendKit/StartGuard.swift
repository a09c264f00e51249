import TaskAPI

/// What a derived task checks before its body starts when its token can be cancelled (C4.3): the
/// gate and the token, behind one optional reference, so that the node of a token that can never
/// be cancelled (the common case) stores and tests a single word.
final class StartGuard: Sendable {
    private let gate: StartGate?
    let token: CancellationToken
    /// Where a derived task runs (`Placement.guarded` keeps it here, so that the node stores one
    /// field for both): `nil` for the inline executor, and for a task that stores its executor
    /// itself.
    let target: (any AsyncTaskExecutor)?

    /// A guard for `task`'s body under `token`, which can be cancelled; `target` as above.
    init<T>(for task: KitTask<T>, token: CancellationToken, target: (any AsyncTaskExecutor)? = nil) {
        self.token = token
        self.target = target
        gate = StartGate.make(for: task, token: token)
    }

    /// `false` if the token's handler won the gate, or if the token is cancelled by now: then
    /// `task` is cancelled.
    func allowsStart(of task: TaskCore) -> Bool {
        if let gate, !gate.claimForBody() { return false }
        if token.isCancellationRequested {
            _ = task.complete(.cancelled)
            return false
        }
        return true
    }
}
