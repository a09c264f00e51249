/// A task's continuations in registration order, in one word: none, one, or an array of them
/// (the case sits in the references' spare bits). TaskAPI's `Continuations` (a first element and
/// an array) takes two words, and releases its empty array in every task's deinit: this one
/// makes every task and `map` node 8 bytes smaller, and a task that never had two continuations
/// never touches an array.
enum KitContinuations {
    case empty
    case one(KitContinuation)
    /// Two or more, in registration order (never fewer: removing down to one makes `.one`).
    case many([KitContinuation])

    @inline(__always)
    var isEmpty: Bool {
        if case .empty = self { return true }
        return false
    }

    /// Whether these are the continuations of `task` and a single waker (`KitContinuation.isWaker`,
    /// or `task` itself as its own awaiter, `RunTask`): a completion takes it and wakes it at once,
    /// with no delivery phase (`TaskCore.complete`). A delivery phase, the trampoline and the lock
    /// taken again to end the phase cost about 60 instructions per pending `await` (callgrind,
    /// docs/BENCHMARKS.md, "The pending `await`, ninth session").
    @inline(__always)
    func isLoneWaker(of task: TaskCore) -> Bool {
        guard case .one(let only) = self else { return false }
        return only === task || only.isWaker
    }

    /// Adds `continuation` after the others.
    @inline(__always)
    mutating func append(_ continuation: KitContinuation) {
        switch self {
        case .empty:
            self = .one(continuation)
        case .one(let first):
            self = .many([first, continuation])
        case .many(var list):
            // Let go of this reference first, so that the array is uniquely held and grows in place.
            self = .empty
            list.append(continuation)
            self = .many(list)
        }
    }

    /// Removes and returns the first continuation that `matches`, if any.
    mutating func remove(where matches: (KitContinuation) -> Bool) -> KitContinuation? {
        switch self {
        case .empty:
            return nil
        case .one(let only):
            guard matches(only) else { return nil }
            self = .empty
            return only
        case .many(var list):
            guard let index = list.firstIndex(where: matches) else { return nil }
            self = .empty
            let removed = list.remove(at: index)
            self = list.count == 1 ? .one(list[0]) : .many(list)
            return removed
        }
    }

    /// Every continuation, in registration order (off the hot paths: the graveyard, the planted
    /// bugs).
    var all: [KitContinuation] {
        switch self {
        case .empty: return []
        case .one(let only): return [only]
        case .many(let list): return list
        }
    }
}
