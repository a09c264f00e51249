import TaskAPI

/// The kit's continuation algorithms: the same semantics as TaskAPI's defaults (C2.6, C3.1–C3.3,
/// C4.3), with the derived task registered directly on the non-generic core. `map` and
/// `continueWith` cost one allocation, the derived task, which is its own registration; no
/// `Completion<T>` conversion on the pass-through paths, and the value goes from the antecedent's
/// slot to the transform as it is.
extension KitTask {
    public func continueWith<U: Sendable>(
        on executor: any Executor,
        token: CancellationToken,
        _ body: @escaping @Sendable (Completion<T>) throws -> U
    ) -> any AsyncTask<U> {
        let node = ContinueTask<T, U>(owner: owner, executor: executor, body: body)
        if token.canBeCancelled { node.guardStart(with: token) }
        registerFresh(node, inPlace: node.runsInPlace)
        return node
    }

    public func continueWithTask<U: Sendable>(
        on executor: any Executor,
        token: CancellationToken,
        _ body: @escaping @Sendable (Completion<T>) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        let child = KitTask<U>(owner: owner)
        register(ContinueWithTask(executor: executor, child: child, token: token, body: body))
        return child
    }

    public func flatMap<U: Sendable>(
        on executor: any Executor,
        token: CancellationToken,
        _ transform: @escaping @Sendable (T) throws -> any AsyncTask<U>
    ) -> any AsyncTask<U> {
        let child = KitTask<U>(owner: owner)
        register(FlatMap(executor: executor, child: child, token: token, transform: transform))
        return child
    }

    /// Completes with the outcome of the task `body` returns, or with what it throws (C2.6).
    func adopt(_ body: () throws -> any AsyncTask<T>) {
        let inner: any AsyncTask<T>
        do {
            inner = try body()
        } catch is CancellationError {
            _ = complete(.cancelled)   // C3.2
            return
        } catch {
            _ = complete(.failure(error))   // C3.1
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

/// `continueWith`'s derived task: it is its own registration on its antecedent, so registering it
/// allocates nothing beyond the task (C2.1, C3.1, C3.2, C4.3).
final class ContinueTask<T: Sendable, U: Sendable>: KitTask<U>, @unchecked Sendable {
    // @unchecked: `body` and `startGuard` are written before the node is registered (the
    // registration's lock publishes them) and `body` is cleared by `run`, which the antecedent
    // calls exactly once (C2.1); nothing else touches them.
    private var body: (@Sendable (Completion<T>) throws -> U)?
    /// `nil` when the token can never be cancelled.
    private var startGuard: StartGuard?
    private let target: (any Executor)?

    /// The initializer takes only what every node stores: with the token's work in it too, the
    /// optimizer retained and released each argument once more (4 pairs per link).
    @inline(__always)
    init(owner: any KitBackend, executor: any Executor, body: @escaping @Sendable (Completion<T>) throws -> U) {
        self.body = body
        target = KitContinuation.stored(executor)
        super.init(owner: owner)
    }

    /// Makes `token` able to cancel this task before its body starts (C4.3). Before registration.
    func guardStart(with token: CancellationToken) {
        startGuard = StartGuard(for: self, token: token)
    }

    override func handOff(_ outcome: KitOutcome, from antecedent: TaskCore) {
        guard let target else { return run(outcome, from: antecedent) }   // the inline executor
        HandOff.enqueue(self, outcome, antecedent, on: target)
    }

    /// Runs where it is handed over, and only its antecedent starts it (see `registerFresh`).
    var runsInPlace: Bool { target == nil && startGuard == nil }

    override func run(_ outcome: KitOutcome, from antecedent: TaskCore) {
        perform(outcome, from: antecedent, fresh: false)
    }

    override func runFresh(_ outcome: KitOutcome, from antecedent: TaskCore) {
        perform(outcome, from: antecedent, fresh: true)
    }

    /// Runs the body once (C2.1); `fresh`: with no other thread able to reach this task.
    @inline(__always)
    private func perform(_ outcome: KitOutcome, from antecedent: TaskCore, fresh: Bool) {
        guard let body else { return }
        self.body = nil   // C8.1: the closure and its captures go as soon as it has run
        if fresh {
            startUnshared()
        } else {
            guard startBody(startGuard) else { return }
        }
        // Registered on a KitTask<T> (see `KitContinuation.run`).
        let completion = antecedent.kitTask(of: T.self).typed(outcome)
        settle(fresh: fresh) { try body(completion) }
    }
}

/// `map`'s derived task: runs the transform on a success and passes anything else through,
/// without converting it (C3.3). Its own registration, like `ContinueTask`.
final class MapTask<T: Sendable, U: Sendable>: KitTask<U>, @unchecked Sendable {
    // @unchecked: as for ContinueTask.
    private var transform: (@Sendable (T) throws -> U)?
    private var startGuard: StartGuard?
    private let target: (any Executor)?

    @inline(__always)
    init(owner: any KitBackend, executor: any Executor, transform: @escaping @Sendable (T) throws -> U) {
        self.transform = transform
        target = KitContinuation.stored(executor)
        super.init(owner: owner)
    }

    /// As `ContinueTask.guardStart(with:)`.
    func guardStart(with token: CancellationToken) {
        startGuard = StartGuard(for: self, token: token)
    }

    /// A same-type `map` on a same-type link (`Int` to `Int` to `Int`...) needs a node of this
    /// very class: made from `type(of: self)`, whose metadata is at hand, it skips the runtime
    /// lookup of `MapTask<U, V>` that unspecialized code otherwise pays for every link.
    override func map<V: Sendable>(
        on executor: any Executor,
        token: CancellationToken,
        _ transform: @escaping @Sendable (U) throws -> V
    ) -> any AsyncTask<V> {
        guard T.self == U.self, U.self == V.self else {
            return super.map(on: executor, token: token, transform)
        }
        // T, U and V are one type (checked just above), so these casts change no representation.
        let same = unsafeBitCast(transform, to: (@Sendable (T) throws -> U).self)
        let node = type(of: self).init(owner: owner, executor: executor, transform: same)
        if token.canBeCancelled { node.guardStart(with: token) }
        registerFresh(node, inPlace: node.runsInPlace)
        return unsafeBitCast(node as any AsyncTask<U>, to: (any AsyncTask<V>).self)
    }

    override func handOff(_ outcome: KitOutcome, from antecedent: TaskCore) {
        guard let target else { return run(outcome, from: antecedent) }   // the inline executor
        HandOff.enqueue(self, outcome, antecedent, on: target)
    }

    /// As `ContinueTask.runsInPlace`.
    var runsInPlace: Bool { target == nil && startGuard == nil }

    override func run(_ outcome: KitOutcome, from antecedent: TaskCore) {
        perform(outcome, from: antecedent, fresh: false)
    }

    override func runFresh(_ outcome: KitOutcome, from antecedent: TaskCore) {
        perform(outcome, from: antecedent, fresh: true)
    }

    /// As `ContinueTask.perform`.
    @inline(__always)
    private func perform(_ outcome: KitOutcome, from antecedent: TaskCore, fresh: Bool) {
        guard let transform else { return }
        self.transform = nil   // C8.1: the closure and its captures go as soon as it has run
        if fresh {
            startUnshared()
        } else {
            guard startBody(startGuard) else { return }
        }
        guard case .success = outcome else {
            finish(outcome, fresh: fresh)   // failure or cancellation, unchanged (C3.3)
            return
        }
        // Registered on a KitTask<T> (see `KitContinuation.run`).
        let value = antecedent.kitTask(of: T.self).loadValue()
        settle(fresh: fresh) { try transform(value) }
    }
}

/// `continueWithTask`'s registration: runs the body and completes `child` with the outcome of the
/// task it returns (C2.6, C4.3).
final class ContinueWithTask<T: Sendable, U: Sendable>: KitContinuation, @unchecked Sendable {
    // @unchecked: `body` is written in init and cleared by `run`, which the antecedent calls
    // exactly once (C2.1); the other properties are `let`s of Sendable types.
    private let child: KitTask<U>
    private let startGuard: StartGuard?
    private let target: (any Executor)?
    private var body: (@Sendable (Completion<T>) throws -> any AsyncTask<U>)?

    init(executor: any Executor, child: KitTask<U>, token: CancellationToken,
         body: @escaping @Sendable (Completion<T>) throws -> any AsyncTask<U>) {
        self.child = child
        startGuard = token.canBeCancelled ? StartGuard(for: child, token: token) : nil
        self.body = body
        target = KitContinuation.stored(executor)
    }

    override func handOff(_ outcome: KitOutcome, from antecedent: TaskCore) {
        guard let target else { return run(outcome, from: antecedent) }   // the inline executor
        HandOff.enqueue(self, outcome, antecedent, on: target)
    }

    override func run(_ outcome: KitOutcome, from antecedent: TaskCore) {
        guard let body else { return }
        self.body = nil   // C8.1
        guard child.startBody(startGuard) else { return }
        // Registered on a KitTask<T> (see `KitContinuation.run`).
        let completion = antecedent.kitTask(of: T.self).typed(outcome)
        child.adopt { try body(completion) }
    }
}

/// `flatMap`'s registration: runs the transform on a success and completes `child` with the
/// outcome of the task it returns; anything else passes through (C2.6, C3.3, C4.3).
final class FlatMap<T: Sendable, U: Sendable>: KitContinuation, @unchecked Sendable {
    // @unchecked: as for ContinueWithTask.
    private let child: KitTask<U>
    private let startGuard: StartGuard?
    private let target: (any Executor)?
    private var transform: (@Sendable (T) throws -> any AsyncTask<U>)?

    init(executor: any Executor, child: KitTask<U>, token: CancellationToken,
         transform: @escaping @Sendable (T) throws -> any AsyncTask<U>) {
        self.child = child
        startGuard = token.canBeCancelled ? StartGuard(for: child, token: token) : nil
        self.transform = transform
        target = KitContinuation.stored(executor)
    }

    override func handOff(_ outcome: KitOutcome, from antecedent: TaskCore) {
        guard let target else { return run(outcome, from: antecedent) }   // the inline executor
        HandOff.enqueue(self, outcome, antecedent, on: target)
    }

    override func run(_ outcome: KitOutcome, from antecedent: TaskCore) {
        guard let transform else { return }
        self.transform = nil   // C8.1
        guard child.startBody(startGuard) else { return }
        guard case .success = outcome else {
            _ = child.complete(outcome)   // failure or cancellation, unchanged (C3.3)
            return
        }
        // Registered on a KitTask<T> (see `KitContinuation.run`).
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

    override func run(_ outcome: KitOutcome, from antecedent: TaskCore) {
        _ = target.pass(outcome, from: antecedent)
    }
}
