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
    /// captures the waker alone (docs/BENCHMARKS.md, "The pending `await`").
    public var value: T {
        @inline(__always) get async throws {
            // The outcome, not `completion`: a `Completion<T>` costs runtime metadata lookups in
            // unspecialized code, and `get(_:)` reads the value straight from the slot.
            if let outcome { return try get(outcome) }
            // The waker is not generic (a `ValueResumer<T>` cost a runtime metadata lookup per
            // suspended `await`, about 250 instructions): it resumes the awaiting task with the
            // outcome, and the value is read from this task's slot here. A `run`'s task is its
            // own waker for its first `await` (`TaskCore.ownAwaiter()`): no allocation.
            let waker: any KitAwaiter = ownAwaiter() ?? ValueResumer(awaiting: self)
            // The standard library's form of `withTaskCancellationHandler` without the
            // `isolation` parameter (its ABI before Swift 6, kept public for compiled clients):
            // it inherits the caller's executor instead of hopping to `isolation` on entry and
            // on exit. This getter is nonisolated, so both forms run on the generic executor
            // throughout and the operation hops there itself; the same record is added and
            // removed. Two `swift_task_switch` calls fewer per suspended `await`, about 150
            // instructions (docs/BENCHMARKS.md). Should a toolchain deprecate it, the form with
            // `isolation` (its default, nil here) is the drop-in replacement.
            let outcome = try await _unsafeInheritExecutor_withTaskCancellationHandler {
                try await withUnsafeThrowingContinuation { waker.armAwaiter($0) }
            } onCancel: {
                waker.cancelAwait()
            }
            return try get(outcome)
        }
    }
}

/// A waker for one `await` (`KitAwaiter`): resumes one Swift continuation exactly once
/// (`AwaitResumption`).
final class ValueResumer: KitContinuation, KitAwaiter, @unchecked Sendable {
    // @unchecked Sendable: `continuation` is touched only as `AwaitResumption` says, under the
    // ordering of `state`; `task` is a `let`.
    private let state = ScheduledAtomic<UInt8>(AwaitResumption.empty)
    @exclusivity(unchecked) private var continuation: UnsafeContinuation<KitCompletion, any Error>?
    /// The awaited task, unretained: the awaiting getter holds it for as long as the resumer can
    /// register on it or remove itself from it (its cancellation handler runs only while the
    /// getter waits in `withTaskCancellationHandler`, and `swift_task_removeCancellationHandler`
    /// waits for a handler running on another thread); the task holds the resumer (as a waker)
    /// until it runs. A strong reference cost a retain and a release per `await`, and so did an
    /// `unowned(unsafe)` one, copied strong for each call on it (callgrind).
    private let task: Unmanaged<TaskCore>

    init(awaiting task: TaskCore) {
        self.task = .passUnretained(task)
    }

    func armAwaiter(_ continuation: UnsafeContinuation<KitCompletion, any Error>) {
        task._withUnsafeGuaranteedRef { task in
            AwaitResumption.arm(
                continuation, waker: self, on: task, state: state, load: { self.continuation },
                store: { self.continuation = $0 })
        }
    }

    /// A waker (`KitContinuation.isWaker`): its `run` only resumes the awaiting Swift task.
    override var isWaker: Bool { true }

    /// The task completed: resume with its outcome, unless cancellation came first.
    override func run(_ outcome: KitCompletion, from antecedent: TaskCore) {
        AwaitResumption.resume(outcome, state: state, load: { continuation }, store: { continuation = $0 })
    }

    func cancelAwait() {
        task._withUnsafeGuaranteedRef { task in
            AwaitResumption.cancel(
                waker: self, on: task, state: state, load: { continuation }, store: { continuation = $0 })
        }
    }
}
