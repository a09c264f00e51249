import TaskAPI

extension KitBackend {
    /// Succeeds with every input's value in input order; the first failure or cancellation among
    /// the inputs completes it at once with that outcome; `[]` at once for no input; holds no
    /// input and no value once complete (C5.1, C5.5). TaskAPI's algorithm, with its
    /// `Collector`'s rules (`KitCollector`, the same without a lock), and the same result for
    /// every input. A kit task's report reads the value from the input's slot, and needs no
    /// allocation in the common cases (`TaskCore.join(_:at:on:)`): an input completed and delivered
    /// reports at once, and a `run` task not yet completed keeps the join in fields of its own
    /// when it is the first continuation; any other kit input gets one non-generic node
    /// (`JoinSlot`).
    ///
    /// Why not TaskAPI's default alone: it registers a `whenComplete` closure per input, and each
    /// delivery builds a `Completion<T>` and switches on it, three runtime metadata lookups and
    /// two allocations per input in unspecialized code (callgrind, a fan-out of 100,000 `run`
    /// bodies). An input that is not a kit task takes that general path.
    public func whenAll<T: Sendable>(_ tasks: [any AsyncTask<T>]) -> any AsyncTask<[T]> {
        if tasks.isEmpty { return completed(.success([])) }
        // A source, as in TaskAPI's default: if every input is freed pending, the joining task
        // fails with `TaskError.abandoned` (C8.3) instead of staying pending forever.
        let join = KitJoin(source: KitSource<[T]>(owner: self), count: tasks.count)
        // The calling thread's runtime, looked up once: an input completed and delivered reports
        // on it (the thread-specific lookup, about 30 instructions, per input otherwise).
        ThreadRuntime.unmanagedCurrent._withUnsafeGuaranteedRef { runtime in
            // Read in place from the array's buffer: its subscript, unspecialized here, copied each
            // input out through its value witness.
            tasks.withUnsafeBufferPointer { inputs in
                for index in inputs.indices {
                    // Borrowed, not retained: the array holds every input for the whole call.
                    // Copied out as an owned reference, each input was retained and released
                    // around the opaque calls below (callgrind, fan-out).
                    let object = Unmanaged.passUnretained(inputs[index] as AnyObject)
                    // A kit task seen as `any AsyncTask<T>` is a `KitTask<T>`: `TaskCore`'s only
                    // conforming subclass, and its `Success` is `T`. The test is a class test of the
                    // reference (`AsyncTask` is class-bound, `TaskCoreCast`): the existential's own
                    // cast costs about 300 instructions through the runtime's general `tryCast`.
                    if let core = TaskCoreCast.core(of: object) {
                        // An input already completed and delivered reports at once, and a `run`'s
                        // task keeps the join as its first continuation: no node for either.
                        if core._withUnsafeGuaranteedRef({ $0.join(join, at: index, on: runtime) }) { continue }
                        core._withUnsafeGuaranteedRef { $0.register(JoinSlot(join, index)) }
                    } else {
                        inputs[index].whenComplete(on: InlineExecutor.shared) { join.receive($0, at: index) }
                    }
                }
            }
        }
        return join.source.base
    }
}

/// What a `JoinSlot` reports to: non-generic, so that the slot node is.
class KitJoinBase: @unchecked Sendable {
    // @unchecked: no stored state; the subclass's is Sendable.

    /// Input `index` completed with `outcome`; `antecedent` is that input, a `KitTask` of the
    /// join's element type.
    func receive(_ outcome: KitCompletion, from antecedent: TaskCore, at index: Int) {}
}

/// One kit `whenAll`: its source and the collector of its values.
final class KitJoin<T: Sendable>: KitJoinBase, @unchecked Sendable {
    // @unchecked: both properties are `let`s of Sendable types (`KitCollector` guards its
    // slots).
    let source: KitSource<[T]>
    private let values: KitCollector<T>

    init(source: KitSource<[T]>, count: Int) {
        self.source = source
        values = KitCollector(count: count)
    }

    override func receive(_ outcome: KitCompletion, from antecedent: TaskCore, at index: Int) {
        switch outcome {
        case .success:
            // Registered on a KitTask<T> (see `whenAll`): its value copied from its slot straight
            // into the collector's.
            let all = antecedent.kitTask(of: T.self).recordValue(in: values, at: index)
            if let all { _ = source.base.succeed(all) }
        case .failure, .cancelled:
            if values.finish() { _ = source.base.complete(outcome) }
        }
    }

    /// An input that is not a kit task completed.
    func receive(_ completion: Completion<T>, at index: Int) {
        switch completion {
        case .success(let value):
            if let all = values.record(value, at: index) { _ = source.base.succeed(all) }
        case .failure(let error):
            if values.finish() { _ = source.base.complete(.failure(error)) }
        case .cancelled:
            if values.finish() { _ = source.base.complete(.cancelled) }
        }
    }
}

/// A kit `whenAll`'s registration on one input: runs inline, with the input's outcome (C2.1).
final class JoinSlot: KitContinuation, @unchecked Sendable {
    // @unchecked: restated; both properties are `let`s of Sendable types.
    private let join: KitJoinBase
    private let index: Int

    init(_ join: KitJoinBase, _ index: Int) {
        self.join = join
        self.index = index
        super.init()
    }

    override func run(_ outcome: KitCompletion, from antecedent: TaskCore) {
        join.receive(outcome, from: antecedent, at: index)
    }
}
