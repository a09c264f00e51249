import ScheduleKit
import TaskAPI

/// The source a kit backend hands out from `makeSource`: the writing side of a `KitTask`.
///
/// It holds the task; the task does not hold it. When the last reference to a source goes away
/// while its task is still pending, nobody can complete the task any more, so the source fails
/// it with `TaskError.abandoned` (C8.3): waiters wake and continuations run, instead of hanging
/// forever. Derived tasks (`map`, `continueWith`) are completed by the kit itself, have no
/// source, and pay nothing for this.
public final class KitSource<T: Sendable>: CompletionSource {
    public typealias Success = T

    /// The task this source completes.
    public let base: KitTask<T>

    #if DEBUG
    /// Where the source was made (debug builds: `SourceOriginRecording`), for `TaskError.abandoned`.
    private let origin = Locked<SourceOrigin?>(nil)
    #endif

    /// A source for a new pending task of `owner`.
    public init(owner: any KitBackend) {
        base = SourceTask<T>(owner: owner)
    }

    deinit {
        // A completed task keeps its outcome (C1.1): nothing to do, and no error made only to
        // be refused (an `abandoned` error is boxed on the heap: about 1,000 of the 2,540
        // instructions of a source made, succeeded and dropped). A pending one can never be
        // completed now (C8.3); `tryComplete` settles a race with any other completer.
        guard base.status != .completed else { return }
        #if DEBUG
        base.tryComplete(.failure(TaskError.abandoned(origin: origin.withLock { $0 })))
        #else
        base.tryComplete(.failure(TaskError.abandoned))
        #endif
    }

    public var task: any AsyncTask<T> { base }

    @discardableResult
    public func tryComplete(_ completion: Completion<T>) -> Bool {
        base.tryComplete(completion)
    }

    /// Completes with `value` unless already completed (C1.2): the value stored as it is, with
    /// no `Completion<T>` built, which this unspecialized code (and TaskAPI's default, reached
    /// through `any CompletionSource<T>`) paid a runtime metadata lookup for.
    @discardableResult
    public func trySucceed(_ value: T) -> Bool {
        base.succeed(value)
    }

    @discardableResult
    public func tryStart() -> Bool {
        base.tryStart()
    }
}

#if DEBUG
extension KitSource: SourceOriginRecording {
    public func recordOrigin(_ origin: SourceOrigin) {
        self.origin.withLock { $0 = origin }
    }
}
#endif

/// A source's task: a `KitTask` with room for the body of its first continuation when that is a
/// `whenComplete` on the inline executor, the common case for a source, which then needs no node
/// (16 bytes more per task, a 48-byte node less per such continuation). A derived task has no
/// such field.
final class SourceTask<T: Sendable>: KitTask<T>, @unchecked Sendable {
    // @unchecked: `inlineBody` is written under the core's lock by `registerInline`, before the
    // task completes; after the completion (whose critical section publishes it), only the
    // delivery that completion started reads and clears it (`runInline`), or deinit.
    @exclusivity(unchecked) private var inlineBody: (@Sendable (Completion<T>) -> Void)?

    override func keepInline(_ body: @escaping @Sendable (Completion<T>) -> Void) -> Bool {
        registerInline { inlineBody = body }
    }

    override func runInline(_ outcome: KitCompletion) {
        // Called only by a delivery whose completion found the body kept (`KitState.holdsBody`).
        guard let body = inlineBody else {
            assertionFailure("kit task: a delivery ran the inline body of a task that kept none")
            return
        }
        inlineBody = nil  // C8.1: the closure and its captures go as soon as it has run
        body(typed(outcome))
    }

    deinit {
        // Freed while holding its body: the body goes to the graveyard like any continuation,
        // since its captures may hold a chain of their own (C8.2). The source's deinit completes
        // the task first (C8.3), so no path is known to get here; the guard costs one test.
        guard let inlineBody else { return }
        var orphans = KitContinuations.one(WhenComplete(body: inlineBody))
        self.inlineBody = nil
        ThreadRuntime.current.release(&orphans)
    }
}
