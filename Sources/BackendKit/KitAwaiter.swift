import ScheduleKit
import Synchronization
import TaskAPI

/// What the `await` of a kit task's value suspends on (`KitTask.value`): a `ValueResumer`, or a
/// `run`'s task that is its own for its first `await` (`RunTask`), which allocates nothing.
/// Either resumes one Swift continuation exactly once (`AwaitResumption`): with the task's
/// outcome (the awaiting code reads a success's value from the task's slot), or with
/// `CancellationError` if the awaiting Swift task is cancelled first, even before the
/// continuation exists.
protocol KitAwaiter: AnyObject, Sendable {
    /// Arms the awaiter with the awaiting Swift task's continuation and registers it on the task
    /// as a waker, or resumes at once: with an outcome already there, or with `CancellationError`
    /// if the awaiting task was cancelled already.
    func armAwaiter(_ continuation: UnsafeContinuation<KitCompletion, any Error>)

    /// The awaiting Swift task was cancelled: resume with `CancellationError` unless the outcome
    /// came first, and remove the waker from the task (C4.7: the task itself is left alone).
    func cancelAwait()
}

/// The exactly-once resumption of one awaiting Swift continuation, for the two kinds of
/// `KitAwaiter`, each of which keeps the state and the continuation in fields of its own: it
/// passes the state, and reads and writes the continuation field through `load` and `store`,
/// which run only where this protocol touches it (an `inout` argument would be one access for the
/// whole call, overlapping another thread's, a race by Swift's rules and the thread sanitizer's).
///
/// The continuation is stored by `install` before it publishes state `armed` (releasing), and
/// taken only by whoever moves the state from `armed` to `done` (acquiring); exactly one thread
/// does. A cancellation that comes first moves the state from `empty` to `cancelledEarly`, and the
/// later `install` resumes with `CancellationError`.
enum AwaitResumption {
    typealias Continuation = UnsafeContinuation<KitCompletion, any Error>

    static var empty: UInt8 { 0 }
    static var armed: UInt8 { 1 }
    static var done: UInt8 { 2 }
    static var cancelledEarly: UInt8 { 3 }
    /// A `run`'s task's own awaiter before an `await` claims it (`RunTask.ownAwaiter`).
    static var unclaimed: UInt8 { 4 }

    /// `KitAwaiter.armAwaiter` for `waker`, which awaits `task`.
    @inline(__always)
    static func arm(
        _ continuation: Continuation, waker: KitContinuation, on task: TaskCore, state: borrowing ScheduledAtomic<UInt8>,
        load: () -> Continuation?, store: (Continuation?) -> Void
    ) {
        guard install(continuation, state: state, store: store) else { return }
        if let outcome = task.registerWaker(waker) { take(state: state, load: load, store: store)?.resume(returning: outcome) }
    }

    /// `KitAwaiter.cancelAwait` for `waker`, which awaits `task`.
    @inline(__always)
    static func cancel(
        waker: KitContinuation, on task: TaskCore, state: borrowing ScheduledAtomic<UInt8>,
        load: () -> Continuation?, store: (Continuation?) -> Void
    ) {
        if state.compareExchange(
            expected: empty, desired: cancelledEarly, successOrdering: .relaxed, failureOrdering: .relaxed
        ).exchanged {
            return
        }
        guard let continuation = take(state: state, load: load, store: store) else { return }
        // Removed before the resume: once resumed, the awaiting getter may return and let go of
        // the task.
        _ = task.remove(waker)
        continuation.resume(throwing: CancellationError())
    }

    /// The task completed (the waker runs): resume with its outcome, unless cancellation came
    /// first.
    @inline(__always)
    static func resume(
        _ outcome: KitCompletion, state: borrowing ScheduledAtomic<UInt8>,
        load: () -> Continuation?, store: (Continuation?) -> Void
    ) {
        take(state: state, load: load, store: store)?.resume(returning: outcome)
    }

    /// Arms the awaiter; `false` (and the continuation is resumed with `CancellationError`) if
    /// the awaiting task was cancelled already.
    @inline(__always)
    private static func install(
        _ continuation: Continuation, state: borrowing ScheduledAtomic<UInt8>, store: (Continuation?) -> Void
    ) -> Bool {
        store(continuation)
        if state.compareExchange(
            expected: empty, desired: armed, successOrdering: .releasing, failureOrdering: .relaxed
        ).exchanged {
            return true
        }
        store(nil)
        continuation.resume(throwing: CancellationError())
        return false
    }

    @inline(__always)
    private static func take(
        state: borrowing ScheduledAtomic<UInt8>, load: () -> Continuation?, store: (Continuation?) -> Void
    ) -> Continuation? {
        guard
            state.compareExchange(
                expected: armed, desired: done, successOrdering: .acquiring, failureOrdering: .relaxed
            ).exchanged
        else { return nil }
        defer { store(nil) }
        return load()
    }
}

/// Every kit task answers `ownAwaiter()`; only a `run`'s task has one (`RunTask`).
extension TaskCore: KitAwaiter {}
