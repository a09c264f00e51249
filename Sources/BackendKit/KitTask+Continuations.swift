import TaskAPI

/// The kit's continuation algorithms: the same semantics as TaskAPI's defaults (C2.6, C3.1–C3.3,
/// C4.3), with the derived task registered directly on the non-generic core. Every form goes
/// through one of two funnels, as Bolts routes its continuations through one: `DerivedTask` for
/// a body that returns a value (`map`, `continueWith`), which is the derived task itself, one
/// allocation per link; `UnwrapNode` for a body that returns a task (`flatMap`,
/// `continueWithTask`), which completes its child with that task's outcome. Each funnel holds
/// the hand-off, the start and the token's guard once; a small final subclass per form holds
/// only its body and what it does with the outcome: every outcome as a `Completion<T>`
/// (`continueWith`), or the value of a success, anything else passing through unchanged
/// (`map`, C3.3). Two subclasses, not one class with a flag: in the unspecialized code every
/// continuation runs, a `run` holding both forms paid the runtime metadata lookup of
/// `Completion<T>` on every `map` link (about 330 instructions), and with that form moved out
/// of line every `continueWith` link paid about 100 more (callgrind). No `Completion<T>`
/// conversion on the pass-through paths, and the value goes from the antecedent's slot to the
/// transform as it is.
extension KitTask {
    public func continueWith<U: Sendable>(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ body: @escaping @Sendable (Completion<T>) throws -> U
    ) -> any AsyncTask<U> {
        let node = ContinueTask<T, U>(owner: owner, executor: executor, body: body)
        if token.canBeCancelled { node.guardStart(with: token) }
        registerFresh(node, inPlace: node.runsInPlace)
        return node
    }

    public func continueWithTask<U: Sendable>(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ body: @escaping @Sendable (Completion<T>) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        let child = KitTask<U>(owner: owner)
        register(ContinueWithTask(executor: executor, child: child, token: token, body: body))
        return child
    }

    public func flatMap<U: Sendable>(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ transform: @escaping @Sendable (T) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        let child = KitTask<U>(owner: owner)
        register(FlatMap(executor: executor, child: child, token: token, transform: transform))
        return child
    }

    /// Completes with the outcome of the task `body` returns, or with what it throws (C2.6,
    /// C3.1, C3.2).
    func adopt(_ body: () throws -> any AsyncTask<T>) {
        let inner: any AsyncTask<T>
        do {
            inner = try body()
        } catch {
            _ = complete(KitCompletion(thrown: error))
            return
        }
        // A class cast of the reference, as in the kit's `whenAll`: a kit task seen as
        // `any AsyncTask<T>` is a `KitTask<T>`.
        if let core = (inner as AnyObject) as? TaskCore {
            core.register(Adopt(self))
        } else {
            inner.whenComplete(on: InlineExecutor.shared) { _ = self.tryComplete($0) }
        }
    }
}

/// The funnel of `map`'s and `continueWith`'s derived tasks: where the task runs, the token's
/// guard, the body until it starts, the hand-off and the start (C2.1, C2.3, C4.3). A derived task
/// is its own registration on its antecedent, so registering it allocates nothing beyond the
/// task.
///
/// The body (`Body`, a closure: two words, its function and its context) waits in the value slot,
/// not in a field of its own: the slot holds a value only once the task completes, and the body
/// is gone by then, moved out by the start, which comes before the completion, or let go by a
/// completion that comes first (its token, or a caller completing the task as a
/// `CompletionSource`), which moves it out in the critical section that records the
/// completion, before it fills the slot (`TaskCore.complete`). So a `map` node takes 80 bytes,
/// a malloc chunk of 96, not 96 in a chunk of 112.
class DerivedTask<U: Sendable, Body: Sendable>: KitTask<U>, @unchecked Sendable {
    // @unchecked: `placement` is written before the node is registered (the registration's
    // lock publishes it) and only read after; the body is in the core's slot, moved out under
    // the core's lock (or, for a node no other thread can reach yet, without it).
    private final var placement: Placement

    /// The initializer takes only what every node stores: with the token's work in it too, the
    /// optimizer retained and released each argument once more (4 pairs per link).
    @inline(__always)
    init(owner: any KitBackend, executor: any AsyncTaskExecutor, body: Body) {
        placement = Placement(executor)
        super.init(owner: owner)
        assert(
            MemoryLayout<Body>.size == MemoryLayout<(UInt, UInt)>.size
                && MemoryLayout<Body>.alignment <= MemoryLayout<(UInt, UInt)>.alignment,
            "kit task: a derived task's body \(Body.self) does not fit the slot")
        // Safe: the slot is empty (the task is pending, no value, no error), two words of the
        // closure's size and alignment (asserted above), and only this class makes its words a
        // body again, once the start or a completion has moved them out.
        Self.keep(body, at: &slot)
        assert(keepsBody, "kit task: a derived task's body reads as an empty slot")
    }

    @inline(__always)  // into the subclasses' deinits (see `TaskCore`'s)
    deinit {
        // Freed before its body started (an antecedent that never completed): the body goes now.
        if keepsBody { dropUnstartedBody() }
    }

    /// Lets go of the body of a node freed before it started. For deinit only; out of line, so
    /// that the deinit of a node that ran (every other) saves no registers for this path.
    @inline(never)
    private final func dropUnstartedBody() {
        dropKeptBody(takeKeptBody())
    }

    // The body in the slot, under the binding rules of "The slot's memory" (`TaskCore`): only as
    // its two raw words (a closure's function and context), which own it. It becomes words and a
    // value again by value (`unsafeBitCast`, with the context's reference count kept right by
    // hand), never through memory typed as another type, and never through a generic function
    // (`initialize(to:)`, `move()`, `withMemoryRebound`), which unspecialized code calls out of
    // line with the closure type's metadata, looked up at run time
    // (`swift_getFunctionTypeMetadata` and its cache, about 340 instructions per link). A start
    // moves the words out (`takeKeptBody`) and `body(from:)` makes them the body; a completion
    // before the start, or a node freed pending, moves them out and `dropKeptBody` lets them go.

    /// Puts `body` in the empty slot as its raw words, by value: `unsafeBitCast` gives the
    /// closure's two words (the same size, asserted by the initializer) and no reference; the
    /// context is retained for the words, which own the body from then on (the parameter's own
    /// reference goes at the end of the call: the optimizer pairs the two away), and the words
    /// are stored raw over the slot's zeros. The context is a Swift heap object, or none (zero)
    /// for a closure that captures nothing.
    @inline(__always)
    private static func keep(_ body: consuming Body, at words: UnsafeMutableRawPointer) {
        let bits = unsafeBitCast(body, to: (UInt, UInt).self)
        if let context = UnsafeRawPointer(bitPattern: bits.1) {
            _ = Unmanaged<AnyObject>.fromOpaque(context).retain()
        }
        TaskCore.storeWords(bits, at: words)
    }

    /// The body whose bytes `words` hold, moved out of the slot as raw words (`takeKeptBody`),
    /// as a value again, by value, not through memory: `unsafeBitCast` of the two words (a
    /// closure's function and context: the same size, asserted by the initializer) gives a copy
    /// of the closure they are, which retains its context; the words' own reference to that
    /// context (the slot's) is then released, so the body is owned once, as it was in the slot.
    /// No memory is read as a type it is not bound to. The context is a Swift heap object, or
    /// none (`nil`, zero) for a closure that captures nothing. For a body that starts: the
    /// retain and the release meet in one function, where the optimizer pairs them away, and
    /// no generic function is called (a typed copy out of the slot and a `nil` over it cost an
    /// outlined retain and release, +39 instructions per completed inline link).
    @inline(__always)
    private static func body(from words: (UInt, UInt)) -> Body {
        let body = unsafeBitCast(words, to: Body.self)
        if let context = UnsafeRawPointer(bitPattern: words.1) {
            Unmanaged<AnyObject>.fromOpaque(context).release()
        }
        return body
    }

    /// Lets go of the body whose bytes `words` hold, moved out of the slot as raw words by a
    /// completion that came before the start (`TaskCore.complete`, which lets it go after its
    /// critical section, not under the lock), or by the deinit of a node freed pending. The
    /// words go back, stored raw, into fresh memory of their own (a temporary allocation of the
    /// slot's size), bound to `Body?` first: there they are the body's bytes, which as a `Body?`
    /// are `.some` of it (an optional closure's `nil` is a null function word), read through
    /// that binding, and a `nil` assigned over them releases it. Never typed memory of another
    /// type: a `(UInt, UInt)` local read as a `Body?` is type punning, and a drop that did it
    /// compiled, specialized, to nothing (and with the local rebound by `bindMemory` first,
    /// specialized or not: the optimizer trusts a local's declared type; DESIGN.md). Not
    /// `body(from:)` either: unspecialized, its cast goes through memory.
    override final func dropKeptBody(_ words: (UInt, UInt)) {
        // Off the hot path: generic here, and the temporary allocation's out-of-line closure and
        // metadata lookups cost only this path.
        let size = MemoryLayout<(UInt, UInt)>.size
        withUnsafeTemporaryAllocation(byteCount: size, alignment: MemoryLayout<(UInt, UInt)>.alignment) {
            // Safe: fresh memory of the slot's size and alignment, where a `Body?` fits (the
            // initializer asserts that a `Body` is the slot's size; its `nil` is a value of its
            // function word), bound before the words are stored and read only as that.
            let raw = $0.baseAddress.unsafelyUnwrapped
            let kept = raw.bindMemory(to: Body?.self, capacity: 1)
            TaskCore.storeWords(words, at: raw)
            assert(kept.pointee != nil, "kit task: a kept body dropped as no body")
            kept.pointee = nil  // C8.1: the closure and its captures go
        }
    }

    /// Makes `token` able to cancel this task before its body starts (C4.3). Before registration.
    final func guardStart(with token: CancellationToken) {
        placement = .guarded(StartGuard(for: self, token: token, target: placement.target))
    }

    /// Runs where it is handed over, and only its antecedent starts it (see `registerFresh`).
    final var runsInPlace: Bool {
        if case .inPlace = placement { return true }
        return false
    }

    override final func handOff(_ outcome: KitCompletion, from antecedent: TaskCore, on runtime: ThreadRuntime) {
        // The inline executor without a token tested first, and the rest out of line: this path
        // then saves no registers and tail-calls `run` (-10 instructions per pending inline link).
        if case .inPlace = placement { return run(outcome, from: antecedent, on: runtime) }
        handOffPlaced(outcome, from: antecedent, on: runtime)
    }

    /// `handOff` for a node on another executor or under a token.
    @inline(never)
    private final func handOffPlaced(_ outcome: KitCompletion, from antecedent: TaskCore, on runtime: ThreadRuntime) {
        if let queue = owner.unretainedDefaultQueue, placement.isOn(queue) {
            // The backend's default executor: pushed onto as it is, with no class test
            // (`HandOff.enqueue`) and no retain and release of it around the push (one each per
            // hop, callgrind). Safe: the placement holds it, and does not change once the node is
            // registered; the caller (the antecedent's delivery) holds this node until this
            // returns, even once another thread has run the pushed job and let it go.
            return queue._withUnsafeGuaranteedRef { $0.push(JobRing.Slot(handOff: self, outcome, from: antecedent)) }
        }
        guard let target = placement.target else { return run(outcome, from: antecedent, on: runtime) }  // the inline executor
        HandOff.enqueue(self, outcome, antecedent, on: target)
    }

    /// Starts the body (C1.5, C4.3) and moves it out of the slot (`takeKeptBody`, then
    /// `body(from:)`): `fresh`, with no other thread able to reach this task, at once and without
    /// the lock; otherwise if the token allows and the task is still pending, in the critical
    /// section of the start. `nil` if it does not start: the task is completed, or is being
    /// completed by its token's handler, and that completion moves the body out and lets it go
    /// (C8.1); a second run finds it started.
    @inline(__always)
    final func begin(fresh: Bool) -> Body? {
        var words: (UInt, UInt) = (0, 0)
        if fresh {
            startUnshared()
            words = takeKeptBody()
        } else if !startBody(placement.startGuard, taking: { words = takeKeptBody() }) {
            return nil
        }
        // A start that wins finds the task pending, so its body still in the slot.
        guard words.0 != 0 else { preconditionFailure("kit task: a derived task started without its body") }
        return Self.body(from: words)
    }
}

/// `continueWith`'s derived task: its body takes every outcome (C3.1, C3.2).
final class ContinueTask<T: Sendable, U: Sendable>: DerivedTask<U, @Sendable (Completion<T>) throws -> U>,
    @unchecked Sendable
{
    // @unchecked: restated; the class stores nothing of its own (its body is `DerivedTask`'s).

    @inline(__always)
    override init(owner: any KitBackend, executor: any AsyncTaskExecutor, body: @escaping @Sendable (Completion<T>) throws -> U) {
        super.init(owner: owner, executor: executor, body: body)
    }

    override func run(_ outcome: KitCompletion, from antecedent: TaskCore) {
        perform(outcome, from: antecedent, fresh: false, on: nil)
    }

    override func run(_ outcome: KitCompletion, from antecedent: TaskCore, on runtime: ThreadRuntime) {
        perform(outcome, from: antecedent, fresh: false, on: runtime)
    }

    override func runFresh(_ outcome: KitCompletion, from antecedent: TaskCore) {
        perform(outcome, from: antecedent, fresh: true, on: nil)
    }

    /// Runs the body once (C2.1); `fresh`: with no other thread able to reach this task;
    /// `runtime`: the calling thread's, if the caller has it (`run(_:from:on:)`).
    @inline(__always)
    private func perform(_ outcome: KitCompletion, from antecedent: TaskCore, fresh: Bool, on runtime: ThreadRuntime?) {
        // C8.1: the body, moved out of the task, goes as soon as it has run.
        guard let body = begin(fresh: fresh) else { return }
        let completion = antecedent.kitTask(of: T.self).typed(outcome)
        settle(fresh: fresh, on: runtime) { try body(completion) }
    }
}

/// `map`'s derived task: runs the transform on a success and passes anything else through,
/// without converting it (C3.3).
final class MapTask<T: Sendable, U: Sendable>: DerivedTask<U, @Sendable (T) throws -> U>, @unchecked Sendable {
    // @unchecked: as for ContinueTask.

    @inline(__always)
    init(owner: any KitBackend, executor: any AsyncTaskExecutor, transform: @escaping @Sendable (T) throws -> U) {
        super.init(owner: owner, executor: executor, body: transform)
    }

    /// A same-type `map` on a same-type link (`Int` to `Int` to `Int`...) needs a node of this
    /// very class: made from `type(of: self)`, whose metadata is at hand, it skips the runtime
    /// lookup of `MapTask<U, V>` that unspecialized code otherwise pays for every link.
    override func map<V: Sendable>(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ transform: @escaping @Sendable (U) throws -> V
    ) -> any AsyncTask<V> {
        guard T.self == U.self, U.self == V.self else {
            return super.map(on: executor, token: token, transform)
        }
        let node = sameTypeNode(on: executor, token: token, transform)
        let task: any AsyncTask<U> = node
        assert(task is any AsyncTask<V>, "map: a MapTask<\(T.self), \(U.self)> is not an AsyncTask<\(V.self)>")
        // Safe: U and V are one type (checked just above), so an `any AsyncTask<U>` is an
        // `any AsyncTask<V>` with the same representation: no bits change.
        return unsafeBitCast(task as any AsyncTask<U>, to: (any AsyncTask<V>).self)  // `as`: not opened (SE-0352)
    }

    /// The conveniences' same-type `map` (TaskAPI's `mapKeepingType`): this class is
    /// `MapTask<U, U>` when `T` is `U`, and the node's transform goes from `U` to `U` when `V`
    /// is `U`, so the node is returned as `Self`, whose conformance the caller holds.
    override func mapKeepingType<V: Sendable>(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ transform: @escaping @Sendable (U) throws -> V
    ) -> Self? {
        guard T.self == U.self, U.self == V.self else { return nil }
        return sameTypeNode(on: executor, token: token, transform)
    }

    /// A node of this very class for `transform`, registered: only for `T`, `U` and `V` one type.
    @inline(__always)
    private func sameTypeNode<V: Sendable>(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ transform: @escaping @Sendable (U) throws -> V
    ) -> Self {
        assert(T.self == U.self && U.self == V.self, "map: a same-type node of MapTask<\(T.self), \(U.self)> to \(V.self)")
        // Safe: the callers checked that T, U and V are one type, so a closure from U to V is one
        // from T to U with the same representation.
        let same = unsafeBitCast(transform, to: (@Sendable (T) throws -> U).self)
        let node = type(of: self).init(owner: owner, executor: executor, transform: same)
        if token.canBeCancelled { node.guardStart(with: token) }
        registerFresh(node, inPlace: node.runsInPlace)
        return node
    }

    override func run(_ outcome: KitCompletion, from antecedent: TaskCore) {
        perform(outcome, from: antecedent, fresh: false, on: nil)
    }

    override func run(_ outcome: KitCompletion, from antecedent: TaskCore, on runtime: ThreadRuntime) {
        perform(outcome, from: antecedent, fresh: false, on: runtime)
    }

    override func runFresh(_ outcome: KitCompletion, from antecedent: TaskCore) {
        perform(outcome, from: antecedent, fresh: true, on: nil)
    }

    /// As `ContinueTask.perform`.
    @inline(__always)
    private func perform(_ outcome: KitCompletion, from antecedent: TaskCore, fresh: Bool, on runtime: ThreadRuntime?) {
        guard let transform = begin(fresh: fresh) else { return }  // C8.1, as there
        guard case .success = outcome else { return finish(outcome, fresh: fresh, on: runtime) }  // unchanged (C3.3)
        let value = antecedent.kitTask(of: T.self).loadValue()
        settle(fresh: fresh, on: runtime) { try transform(value) }
    }
}

/// The funnel of `flatMap`'s and `continueWithTask`'s registrations: the child they complete
/// with the outcome of the task their body returns, the token's guard, the hand-off and the
/// start (C2.6, C4.3).
class UnwrapNode<U: Sendable>: KitContinuation, @unchecked Sendable {
    // @unchecked: every property is a `let` of a Sendable type.
    final let child: KitTask<U>
    private final let startGuard: StartGuard?
    private final let target: (any AsyncTaskExecutor)?

    init(executor: any AsyncTaskExecutor, child: KitTask<U>, token: CancellationToken) {
        self.child = child
        startGuard = token.canBeCancelled ? StartGuard(for: child, token: token) : nil
        target = KitContinuation.stored(executor)
    }

    override final func handOff(_ outcome: KitCompletion, from antecedent: TaskCore, on runtime: ThreadRuntime) {
        guard let target else { return run(outcome, from: antecedent) }  // the inline executor
        HandOff.enqueue(self, outcome, antecedent, on: target)
    }

    /// Starts the child's body if the token allows and the child is still pending (C4.3); the
    /// subclass has taken its body out first (C8.1).
    @inline(__always)
    final func begin() -> Bool {
        child.startBody(startGuard)
    }
}

/// `continueWithTask`'s registration: its body takes every outcome (C2.6).
final class ContinueWithTask<T: Sendable, U: Sendable>: UnwrapNode<U>, @unchecked Sendable {
    // @unchecked: `body` is written in init and cleared by `run`, which the antecedent calls
    // exactly once (C2.1).
    private var body: (@Sendable (Completion<T>) throws -> any AsyncTask<U>)?

    init(
        executor: any AsyncTaskExecutor, child: KitTask<U>, token: CancellationToken,
        body: @escaping @Sendable (Completion<T>) throws -> any AsyncTask<U>
    ) {
        self.body = body
        super.init(executor: executor, child: child, token: token)
    }

    override func run(_ outcome: KitCompletion, from antecedent: TaskCore) {
        guard let body else { return }
        self.body = nil  // C8.1
        guard begin() else { return }
        let completion = antecedent.kitTask(of: T.self).typed(outcome)
        child.adopt { try body(completion) }
    }
}

/// `flatMap`'s registration: runs the transform on a success; anything else passes through
/// (C2.6, C3.3).
final class FlatMap<T: Sendable, U: Sendable>: UnwrapNode<U>, @unchecked Sendable {
    // @unchecked: as for ContinueWithTask.
    private var transform: (@Sendable (T) throws -> any AsyncTask<U>)?

    init(
        executor: any AsyncTaskExecutor, child: KitTask<U>, token: CancellationToken,
        transform: @escaping @Sendable (T) throws -> any AsyncTask<U>
    ) {
        self.transform = transform
        super.init(executor: executor, child: child, token: token)
    }

    override func run(_ outcome: KitCompletion, from antecedent: TaskCore) {
        guard let transform else { return }
        self.transform = nil  // C8.1
        guard begin() else { return }
        guard case .success = outcome else { return _ = child.complete(outcome) }  // unchanged (C3.3)
        let value = antecedent.kitTask(of: T.self).loadValue()
        child.adopt { try transform(value) }
    }
}

/// Completes `target` with the outcome of the kit task it is registered on (C2.6).
final class Adopt<T: Sendable>: KitContinuation, @unchecked Sendable {
    // @unchecked: restated; `target` is a `let` of a Sendable type.
    private let target: KitTask<T>

    init(_ target: KitTask<T>) {
        self.target = target
    }

    override func run(_ outcome: KitCompletion, from antecedent: TaskCore) {
        _ = target.pass(outcome, from: antecedent)
    }
}
