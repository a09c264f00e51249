import ScheduleKit
import Synchronization
import TaskAPI

extension KitTask {
    /// Native bridge to Swift concurrency (C6.5): no thread blocks. The awaiting Swift task is
    /// resumed at completion, directly by the completing thread, or by its own cancellation,
    /// whichever comes first (C4.7); cancellation leaves this task alone, and removes the waker.
    public var value: T {
        get async throws {
            // The outcome, not `completion`: a `Completion<T>` costs runtime metadata lookups in
            // unspecialized code, and `get(_:)` reads the value straight from the slot.
            if let outcome { return try get(outcome) }
            // The resumer is not generic (a `ValueResumer<T>` cost a runtime metadata lookup per
            // suspended `await`, about 250 instructions): it resumes the awaiting task with the
            // outcome, and the value is read from this task's slot here.
            let resumer = ValueResumer()
            let outcome = try await withTaskCancellationHandler {
                try await withUnsafeThrowingContinuation { continuation in
                    guard resumer.install(continuation) else { return }
                    if let outcome = registerWaker(resumer) { resumer.resume(outcome) }
                }
            } onCancel: {
                if resumer.cancel() { _ = remove(resumer) }
            }
            return try get(outcome)
        }
    }
}

/// Resumes one Swift continuation exactly once: with the task's outcome (the awaiting code reads
/// a success's value from the task's slot), or with `CancellationError` if the awaiting Swift task
/// is cancelled first, even before the continuation exists.
final class ValueResumer: KitContinuation, @unchecked Sendable {
    // @unchecked Sendable: `continuation` is written by `install` before it publishes state
    // `armed` (releasing), and taken only by whoever moves the state from `armed` to `done`
    // (acquiring); exactly one thread does.
    private let state = ScheduledAtomic<UInt8>(0)
    private var continuation: UnsafeContinuation<KitCompletion, any Error>?
    private static var empty: UInt8 { 0 }
    private static var armed: UInt8 { 1 }
    private static var done: UInt8 { 2 }
    private static var cancelledEarly: UInt8 { 3 }

    /// Arms the resumer; `false` (and the continuation is resumed with `CancellationError`) if
    /// the awaiting task was cancelled already.
    func install(_ continuation: UnsafeContinuation<KitCompletion, any Error>) -> Bool {
        self.continuation = continuation
        if state.compareExchange(
            expected: Self.empty, desired: Self.armed,
            successOrdering: .releasing, failureOrdering: .relaxed
        ).exchanged {
            return true
        }
        self.continuation = nil
        continuation.resume(throwing: CancellationError())
        return false
    }

    /// The task completed: resume with its outcome, unless cancellation came first.
    override func run(_ outcome: KitCompletion, from antecedent: TaskCore) {
        resume(outcome)
    }

    /// Resumes with `outcome`, unless cancellation came first.
    func resume(_ outcome: KitCompletion) {
        take()?.resume(returning: outcome)
    }

    /// The awaiting Swift task was cancelled: resume with `CancellationError` unless the outcome
    /// came first. `true` if the resumer was armed and the caller should remove its waker.
    func cancel() -> Bool {
        if state.compareExchange(
            expected: Self.empty, desired: Self.cancelledEarly,
            successOrdering: .relaxed, failureOrdering: .relaxed
        ).exchanged {
            return false
        }
        guard let continuation = take() else { return false }
        continuation.resume(throwing: CancellationError())
        return true
    }

    private func take() -> UnsafeContinuation<KitCompletion, any Error>? {
        guard
            state.compareExchange(
                expected: Self.armed, desired: Self.done,
                successOrdering: .acquiring, failureOrdering: .relaxed
            ).exchanged
        else { return nil }
        defer { continuation = nil }
        return continuation
    }
}
