import Synchronization

extension TaskBackend {
    /// Succeeds with every input's value in input order, whatever the completion order (C5.1).
    /// The first failure or cancellation among the inputs completes it at once with that outcome.
    /// `whenAll([])` succeeds with `[]` at once. Holds no input once complete (C5.5).
    public func whenAll<T: Sendable>(_ tasks: [any AsyncTask<T>]) -> any AsyncTask<[T]> {
        if tasks.isEmpty { return completed(.success([])) }
        let source = makeSource(of: [T].self)
        let state = Locked(CollectState<T?>(count: tasks.count, filler: nil))
        for (index, task) in tasks.enumerated() {
            task.whenComplete(on: inlineExecutor) { completion in
                let outcome: Completion<[T]>? = state.withLock { state in
                    switch completion {
                    case .success(let value):
                        return state.record(value, at: index).map { .success($0.map { $0! }) }
                    case .failure(let error):
                        return state.finish() ? .failure(error) : nil
                    case .cancelled:
                        return state.finish() ? .cancelled : nil
                    }
                }
                if let outcome { source.tryComplete(outcome) }
            }
        }
        return source.task
    }

    /// Waits for every input and succeeds with every outcome, in input order (C5.2).
    /// `whenAllSettled([])` succeeds with `[]` at once.
    public func whenAllSettled<T: Sendable>(_ tasks: [any AsyncTask<T>]) -> any AsyncTask<[Completion<T>]> {
        if tasks.isEmpty { return completed(.success([])) }
        let source = makeSource(of: [Completion<T>].self)
        let state = Locked(CollectState<Completion<T>>(count: tasks.count, filler: .cancelled))
        for (index, task) in tasks.enumerated() {
            task.whenComplete(on: inlineExecutor) { completion in
                if let all = state.withLock({ $0.record(completion, at: index) }) {
                    source.trySucceed(all)
                }
            }
        }
        return source.task
    }

    /// Succeeds with `()` once every input succeeded; fails fast like `whenAll` (C5.1).
    /// For inputs of mixed types: `whenAll(voids: [a.asVoid(), b.asVoid()])`.
    public func whenAll(voids tasks: [any AsyncTask<Void>]) -> any AsyncTask<Void> {
        whenAll(tasks).map(on: inlineExecutor) { _ in () }
    }
}

/// The slots of a collecting combinator: filled by index, handed out once when all are in.
struct CollectState<Element> {
    private var slots: [Element]
    private var remaining: Int
    private(set) var done = false

    init(count: Int, filler: Element) {
        slots = Array(repeating: filler, count: count)
        remaining = count
    }

    /// Stores `element` at `index`; returns every slot when this was the last one missing.
    mutating func record(_ element: Element, at index: Int) -> [Element]? {
        guard !done else { return nil }
        slots[index] = element
        remaining -= 1
        guard remaining == 0 else { return nil }
        done = true
        defer { slots = [] }
        return slots
    }

    /// Marks the combinator finished early and drops what it held (C5.5); `true` the first time.
    mutating func finish() -> Bool {
        guard !done else { return false }
        done = true
        slots = []
        return true
    }
}
