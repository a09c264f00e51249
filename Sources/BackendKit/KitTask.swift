import TaskAPI

/// The task of every backend built on the kit, which is also its own completion source.
///
/// The typed face of `TaskCore`: it keeps the value of a success in a slot of its own and
/// converts between `Completion<T>` and the core's `KitCompletion` at the API boundary. All members are
/// safe from any thread. A backend makes one with `KitTask<T>(owner: backend)` (pending) or
/// `KitTask<T>(owner:completed:)`.
public class KitTask<T: Sendable>: TaskCore, AsyncTask, CompletionSource, @unchecked Sendable {
    // @unchecked: the core's slot holds the value of a success: written once, under the core's
    // lock, by the completion that wins, before that lock publishes the completed status; read
    // only by whoever has seen the status completed with a success (under the same lock, or from
    // the delivery that lock started), and destroyed in deinit. Not final: the continuation nodes
    // (KitTask+Continuations.swift) are derived tasks that carry their body.
    public typealias Success = T

    // The value of a success sits in the core's `slot`: in place when it fits two words (most
    // values: integers, floats, strings, arrays, class references), else in a heap box whose
    // address is the first word. Raw words rather than a `T?`: an optional of a generic type
    // costs a runtime metadata lookup in unspecialized code, raw words are touched only through
    // `T`'s own value witnesses.

    @inline(__always)
    private static var fitsInline: Bool {
        MemoryLayout<T>.size <= MemoryLayout<(UInt, UInt)>.size
            && MemoryLayout<T>.alignment <= MemoryLayout<(UInt, UInt)>.alignment
    }

    /// A pending task (C1.1).
    @inline(__always)
    public override init(owner: any KitBackend) {
        super.init(owner: owner)
    }

    /// An already-completed task (C1.4).
    public init(owner: any KitBackend, completed completion: Completion<T>) {
        switch completion {
        case .success(let value):
            super.init(owner: owner, completed: .success(()))
            store(value)
        case .failure(let error):
            super.init(owner: owner, completed: .failure(error))
        case .cancelled:
            super.init(owner: owner, completed: .cancelled)
        }
    }

    @inline(__always)  // into the subclasses' deinits (see `TaskCore`'s)
    deinit {
        // A trivial value in place needs no destruction: one test of the type's flags instead of
        // reading the outcome and calling the value witness.
        if Self.fitsInline && _isPOD(T.self) { return }
        // The slot holds a value exactly when the task completed with a success.
        guard holdsValue else { return }
        Self.destroy(&slot)
    }

    // The slot's three operations take its address as an argument (`&slot`), which for a
    // final stored property is the property's own storage, valid for the call: no closure, so
    // unspecialized code does not call a generic `withUnsafeMutablePointer`. The words are raw
    // storage, under the binding rules of "The slot's memory" (`TaskCore`): in place, `store`
    // binds them to `T` and initializes them, and `load` and `destroy` reach the value through
    // that binding; boxed, the box's address is a trivial word stored and loaded raw, and the
    // box is memory allocated for `T`. The tuple's own type is never read.

    @inline(__always)
    private static func store(_ value: consuming T, at words: UnsafeMutableRawPointer) {
        if fitsInline {
            // `bindMemory` then `initialize(to:)`: the two builtins `initializeMemory(as:to:)` is
            // made of (which unspecialized code calls out of line, around the same value witness).
            // Over the zero words of an empty slot: a trivial value, which a binding may replace.
            words.bindMemory(to: T.self, capacity: 1).initialize(to: value)
        } else {
            let box = UnsafeMutablePointer<T>.allocate(capacity: 1)
            box.initialize(to: value)
            words.storeBytes(of: box, as: UnsafeMutablePointer<T>.self)
        }
    }

    @inline(__always)
    private static func load(from words: UnsafeMutableRawPointer) -> T {
        // In place: bound to `T` by `store`, which ran before the success was published.
        if fitsInline { return words.assumingMemoryBound(to: T.self).pointee }
        return words.load(as: UnsafeMutablePointer<T>.self).pointee
    }

    private static func destroy(_ words: UnsafeMutableRawPointer) {
        if fitsInline {
            // Bound to `T` by `store`; the task is being freed, so the words stay as they are.
            words.assumingMemoryBound(to: T.self).deinitialize(count: 1)
        } else {
            let box = words.load(as: UnsafeMutablePointer<T>.self)
            box.deinitialize(count: 1)
            box.deallocate()
        }
    }

    /// Puts `value` in the empty slot. Called once: under the core's lock by the winning
    /// completion, or in `init` before the task is shared.
    @inline(__always)
    private final func store(_ value: consuming T) {
        assertSlotEmpty()
        Self.store(value, at: &slot)
    }

    /// The value of a success. Only for a task completed with a success (its outcome said so):
    /// the slot is filled before such an outcome is published, and never changes after.
    @inline(__always)
    final func loadValue() -> T {
        assertHoldsValue()
        return Self.load(from: &slot)
    }

    /// Records a copy of a success's value in `values` at `index` (`KitCollector.record(copyOf:at:)`),
    /// made from its place in the slot or its box straight into the collector's slot, with no
    /// value of `T` in between, which unspecialized code copies in and out through its value
    /// witnesses. Only for a task completed with a success, as `loadValue()`.
    @inline(__always)
    final func recordValue(in values: KitCollector<T>, at index: Int) -> [T]? {
        assertHoldsValue()
        return Self.recordValue(at: &slot, in: values, index)
    }

    @inline(__always)
    private static func recordValue(at words: UnsafeMutableRawPointer, in values: KitCollector<T>, _ index: Int) -> [T]? {
        // In place: bound to `T` by `store`, which ran before the success was published.
        if fitsInline { return values.record(copyOf: UnsafePointer(words.assumingMemoryBound(to: T.self)), at: index) }
        return values.record(copyOf: UnsafePointer(words.load(as: UnsafeMutablePointer<T>.self)), at: index)
    }

    /// Completes with `value` (C1.1); `false` if the task was already completed. `runtime`: the
    /// calling thread's, if the caller has it (see `complete(_:storing:on:)`).
    @inline(__always)
    final func succeed(_ value: T, on runtime: ThreadRuntime? = nil) -> Bool {
        complete(.success(()), storing: { store(value) }, on: runtime)
    }

    /// Completes with what `body` returns or throws (C3.1, C3.2, as `Completion(thrown:)` says);
    /// `fresh` for a task no other thread can reach yet, as `finish(_:fresh:on:)`.
    @inline(__always)
    final func settle(fresh: Bool = false, on runtime: ThreadRuntime? = nil, _ body: () throws -> T) {
        do {
            let value = try body()
            if fresh {
                completeUnshared(.success(())) { store(value) }
            } else {
                _ = succeed(value, on: runtime)
            }
        } catch {
            fail(thrown: error, fresh: fresh, on: runtime)
        }
    }

    /// Completes with the outcome of `antecedent`, a `KitTask<T>` (C2.6, C3.3).
    final func pass(_ outcome: KitCompletion, from antecedent: TaskCore) -> Bool {
        guard case .success = outcome else { return complete(outcome) }
        // The antecedent is a KitTask<T>: every caller registered on one (see `KitContinuation.run`).
        return succeed(antecedent.kitTask(of: T.self).loadValue())
    }

    /// The value of `outcome`, this task's, or its error, as `Completion.get()` gives them
    /// (`CancellationError` for a cancellation), without building a `Completion<T>`, whose
    /// metadata unspecialized code looks up at run time.
    @inline(__always)
    final func get(_ outcome: KitCompletion) throws -> T {
        switch outcome {
        case .success: return loadValue()
        case .failure(let error): throw error
        case .cancelled: throw CancellationError()
        }
    }

    /// `outcome`, this task's, with its value.
    final func typed(_ outcome: KitCompletion) -> Completion<T> {
        switch outcome {
        case .success: return .success(loadValue())
        case .failure(let error): return .failure(error)
        case .cancelled: return .cancelled
        }
    }

    public var backend: any TaskBackend { owner }
    public var task: any AsyncTask<T> { self }
    public var completion: Completion<T>? { outcome.map(typed) }

    @discardableResult
    public final func tryComplete(_ completion: Completion<T>) -> Bool {
        switch completion {
        case .success(let value): return succeed(value)
        case .failure(let error): return complete(.failure(error))
        case .cancelled: return complete(.cancelled)
        }
    }

    /// Completes with `value` unless already completed (C1.2), with no `Completion<T>` built
    /// (see `KitSource.trySucceed`).
    @discardableResult
    public final func trySucceed(_ value: T) -> Bool {
        succeed(value)
    }

    public final func whenComplete(on executor: any AsyncTaskExecutor, _ body: @escaping @Sendable (Completion<T>) -> Void) {
        if let executor = KitContinuation.stored(executor) {
            register(WhenCompleteOn(executor: executor, body: body))
            return
        }
        if keepInline(body) { return }
        register(WhenComplete(body: body))
    }

    /// Keeps `body`, an inline `whenComplete`'s, without a node if this task has room for it
    /// (`SourceTask`) and it would be its first continuation; `false` otherwise.
    func keepInline(_ body: @escaping @Sendable (Completion<T>) -> Void) -> Bool { false }

    /// In the class, not an extension, so that `MapTask` can refine it.
    public func map<U: Sendable>(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ transform: @escaping @Sendable (T) throws -> U
    ) -> any AsyncTask<U> {
        let node = MapTask<T, U>(owner: owner, executor: executor, transform: transform)
        if token.canBeCancelled { node.guardStart(with: token) }
        registerFresh(node, inPlace: node.runsInPlace)
        return node
    }

    /// A task of this very class only `MapTask<T, T>` can make (its override); any other kit
    /// task answers `nil`, and the `map` conveniences call `map(on:token:_:)` instead.
    public func mapKeepingType<U: Sendable>(
        on executor: any AsyncTaskExecutor,
        token: CancellationToken,
        _ transform: @escaping @Sendable (T) throws -> U
    ) -> Self? {
        nil
    }

    public final func wait() -> Completion<T> {
        typed(waitOutcome())
    }

    public final func wait(timeout: Duration) -> Completion<T>? {
        waitOutcome(timeout: timeout).map(typed)
    }
}

extension TaskCore {
    /// This task as the `KitTask<T>` it is. The one downcast of the kit's continuations: a
    /// continuation made for a `T` is registered on a `KitTask<T>`, which is the task it is
    /// handed (`KitContinuation.run`), and a join's input is its element type's. Unchecked in
    /// release builds (`unsafeDowncast`, no dynamic cast on the hot path); debug builds check it
    /// and name both types.
    @inline(__always)
    final func kitTask<T: Sendable>(of type: T.Type) -> KitTask<T> {
        assert(self is KitTask<T>, "kit task: a continuation for KitTask<\(T.self)> was handed a \(Swift.type(of: self))")
        return unsafeDowncast(self, to: KitTask<T>.self)
    }
}
