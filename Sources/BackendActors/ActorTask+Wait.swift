import Synchronization
import TaskAPI

extension ActorTask {
    /// Blocks the calling thread (C6.1, C6.3). On a worker of the pool, the pool may start
    /// another thread while this one is blocked (C6.4).
    nonisolated func wait() -> Completion<T> {
        if let completion { return completion }
        let waiter = Waiter<T>()
        register(waker: waiter.wake)
        return blockingCall { waiter.wait(until: nil) } ?? .cancelled
    }

    nonisolated func wait(timeout: Duration) -> Completion<T>? {
        if let completion { return completion }
        let waiter = Waiter<T>()
        register(waker: waiter.wake)
        let deadline = Parker.deadline(after: timeout)
        return blockingCall { waiter.wait(until: deadline) }
    }

    /// Native bridge to Swift concurrency (C6.5): no thread blocks. The awaiting Swift task is
    /// resumed by the actor at completion, or by its own cancellation, whichever comes first
    /// (C4.7); cancellation leaves this task alone.
    nonisolated var value: T {
        get async throws {
            if let completion { return try completion.get() }
            let resumer = ValueResumer<T>()
            return try await withTaskCancellationHandler {
                try await withUnsafeThrowingContinuation { continuation in
                    if resumer.install(continuation) {
                        register(waker: resumer.resume)
                    }
                }
            } onCancel: {
                resumer.cancel()
            }
        }
    }
}

/// A thread blocked in `wait()`: a parker and the slot its waker fills.
final class Waiter<T: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `slot` is only touched holding `parker`'s mutex.
    private let parker = Parker()
    private var slot: Completion<T>?

    var wake: @Sendable (Completion<T>) -> Void {
        { completion in
            self.parker.locked {
                self.slot = completion
                self.parker.signal()
            }
        }
    }

    /// Sleeps until woken or `deadline` (monotonic ns; `nil`: none). `nil` if it timed out.
    func wait(until deadline: UInt64?) -> Completion<T>? {
        parker.locked {
            while slot == nil {
                if let deadline {
                    if !parker.sleep(until: deadline) { break }
                } else {
                    parker.sleep()
                }
            }
            return slot
        }
    }
}

/// Resumes one Swift continuation exactly once: with the task's outcome, or with
/// `CancellationError` if the awaiting Swift task is cancelled first, even before the
/// continuation exists.
final class ValueResumer<T: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `continuation` is written by `install` before it publishes state
    // `armed` (releasing), and taken only by whoever moves the state from `armed` to `done`
    // (acquiring); exactly one thread does.
    private let state = Atomic<UInt8>(0)
    private var continuation: UnsafeContinuation<T, any Error>?
    private static var empty: UInt8 { 0 }
    private static var armed: UInt8 { 1 }
    private static var done: UInt8 { 2 }
    private static var cancelledEarly: UInt8 { 3 }

    /// Arms the resumer; `false` (and the continuation is resumed with `CancellationError`) if
    /// the awaiting task was cancelled already.
    func install(_ continuation: UnsafeContinuation<T, any Error>) -> Bool {
        self.continuation = continuation
        if state.compareExchange(expected: Self.empty, desired: Self.armed,
                                 successOrdering: .releasing, failureOrdering: .relaxed).exchanged {
            return true
        }
        self.continuation = nil
        continuation.resume(throwing: CancellationError())
        return false
    }

    func resume(_ completion: Completion<T>) {
        guard let continuation = take() else { return }
        switch completion {
        case .success(let value): continuation.resume(returning: value)
        case .failure(let error): continuation.resume(throwing: error)
        case .cancelled: continuation.resume(throwing: CancellationError())
        }
    }

    func cancel() {
        if state.compareExchange(expected: Self.empty, desired: Self.cancelledEarly,
                                 successOrdering: .relaxed, failureOrdering: .relaxed).exchanged {
            return
        }
        take()?.resume(throwing: CancellationError())
    }

    private func take() -> UnsafeContinuation<T, any Error>? {
        guard state.compareExchange(expected: Self.armed, desired: Self.done,
                                    successOrdering: .acquiring, failureOrdering: .relaxed).exchanged
        else { return nil }
        defer { continuation = nil }
        return continuation
    }
}
