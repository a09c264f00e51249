import ScheduleKit
import Synchronization
import TaskAPI

extension KitTask {
    /// Native bridge to Swift concurrency (C6.5): no thread blocks. The awaiting Swift task is
    /// resumed at completion, directly by the completing thread, or by its own cancellation,
    /// whichever comes first (C4.7); cancellation leaves this task alone, and removes the waker.
    ///
    /// Each async function on the way is a frame from the awaiting Swift task's allocator (about
    /// 130 instructions) and hops to its executor (`swift_task_switch`, about 80 each): the getter
    /// is inlined into `AsyncTask`'s witness for it, so the two make one frame, the cancellation
    /// handler inherits the executor rather than hopping, and the operation that suspends
    /// captures the resumer alone (docs/BENCHMARKS.md, "The pending `await`").
    public var value: T {
        @inline(__always) get async throws {
            // The outcome, not `completion`: a `Completion<T>` costs runtime metadata lookups in
            // unspecialized code, and `get(_:)` reads the value straight from the slot.
            if let outcome { return try get(outcome) }
            // The resumer is not generic (a `ValueResumer<T>` cost a runtime metadata lookup per
            // suspended `await`, about 250 instructions): it resumes the awaiting task with the
            // outcome, and the value is read from this task's slot here.
            let resumer = ValueResumer(awaiting: self)
            // The standard library's form of `withTaskCancellationHandler` without the
            // `isolation` parameter (its ABI before Swift 6, kept public for compiled clients):
            // it inherits the caller's executor instead of hopping to `isolation` on entry and
            // on exit. This getter is nonisolated, so both forms run on the generic executor
            // throughout and the operation hops there itself; the same record is added and
            // removed. Two `swift_task_switch` calls fewer per suspended `await`, about 150
            // instructions (docs/BENCHMARKS.md). Should a toolchain deprecate it, the form with
            // `isolation` (its default, nil here) is the drop-in replacement.
            let outcome = try await _unsafeInheritExecutor_withTaskCancellationHandler {
                try await withUnsafeThrowingContinuation { resumer.arm($0) }
            } onCancel: {
                resumer.cancel()
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
    // (acquiring); exactly one thread does. `task` is a `let`.
    private let state = ScheduledAtomic<UInt8>(0)
    private var continuation: UnsafeContinuation<KitCompletion, any Error>?
    /// The awaited task, unretained: the awaiting getter holds it for as long as the resumer can
    /// register on it or remove itself from it (its cancellation handler runs only while the
    /// getter waits in `withTaskCancellationHandler`, and `swift_task_removeCancellationHandler`
    /// waits for a handler running on another thread); the task holds the resumer (as a waker)
    /// until it runs. A strong reference cost a retain and a release per `await`, and so did an
    /// `unowned(unsafe)` one, copied strong for each call (callgrind).
    private let task: Unmanaged<TaskCore>
    private static var empty: UInt8 { 0 }
    private static var armed: UInt8 { 1 }
    private static var done: UInt8 { 2 }
    private static var cancelledEarly: UInt8 { 3 }

    init(awaiting task: TaskCore) {
        self.task = .passUnretained(task)
    }

    /// Arms the resumer with the awaiting Swift task's continuation and registers it on the task
    /// as a waker, or resumes at once: with an outcome already there, or with `CancellationError`
    /// if the awaiting task was cancelled already.
    func arm(_ continuation: UnsafeContinuation<KitCompletion, any Error>) {
        guard install(continuation) else { return }
        if let outcome = task._withUnsafeGuaranteedRef({ $0.registerWaker(self) }) { resume(outcome) }
    }

    /// Arms the resumer; `false` (and the continuation is resumed with `CancellationError`) if
    /// the awaiting task was cancelled already.
    private func install(_ continuation: UnsafeContinuation<KitCompletion, any Error>) -> Bool {
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
    private func resume(_ outcome: KitCompletion) {
        take()?.resume(returning: outcome)
    }

    /// The awaiting Swift task was cancelled: resume with `CancellationError` unless the outcome
    /// came first, and remove the waker from the task (C4.7: the task itself is left alone).
    func cancel() {
        if state.compareExchange(
            expected: Self.empty, desired: Self.cancelledEarly,
            successOrdering: .relaxed, failureOrdering: .relaxed
        ).exchanged {
            return
        }
        guard let continuation = take() else { return }
        // Removed before the resume: once resumed, the awaiting getter may return and let go of
        // the task this resumer does not own.
        _ = task._withUnsafeGuaranteedRef { $0.remove(self) }
        continuation.resume(throwing: CancellationError())
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
