internal import ScheduleKit

/// The slots of a collecting combinator (`whenAll`, `whenAllSettled`, `any`): filled by index from
/// the inputs' continuations, on any threads; handed out once, in index order, when the last one
/// is in; or dropped at once when the combinator finishes early (C5.5). Public so that a backend
/// that writes its own collecting combinator (BackendKit's `whenAll`) keeps the same rules.
///
/// Why not a generic state under a lock: generic code called across modules runs unspecialized,
/// and there every generic type it touches costs a runtime metadata lookup, a hashed cache probe
/// of hundreds of instructions. A `Locked<CollectState<T?>>` touched about ten of them per input
/// (the lock, the state, the optional, the result's types), and a fan-out of 100,000 `run`
/// bodies joined with `whenAll` spent about 40% of its instructions in the runtime's metadata
/// cache (callgrind). Here the lock guards non-generic progress only, and the values sit in a raw
/// buffer touched through `Element`'s own value witnesses.
public final class Collector<Element>: @unchecked Sendable {
    // @unchecked: `slots[i]` is initialized only under `lock`, by the one call that also marks it
    // filled, and only while the collector is not done; the one call that sets `done` under the
    // same lock then deinitializes (`finish`) or moves out (the last `record`) every filled slot,
    // after the lock has published every write and while nobody else touches the slots any more;
    // `deinit` runs when no other reference is left.

    private let lock: Locked<CollectorProgress>
    private let slots: UnsafeMutablePointer<Element>
    private let count: Int

    /// A collector of `count` slots (at least one).
    public init(count: Int) {
        self.count = count
        slots = .allocate(capacity: Swift.max(count, 1))
        lock = Locked(CollectorProgress(remaining: count, filled: Array(repeating: false, count: count)))
    }

    deinit {
        // Inputs still pending when the combinator's task and inputs were all dropped.
        let filled = lock.withLock { $0.filled }
        for index in filled.indices where filled[index] { (slots + index).deinitialize(count: 1) }
        slots.deallocate()
    }

    /// Stores `element` at `index`; returns every element, in index order, when this was the last
    /// one missing. Once the collector is done, or for an index already filled, drops `element`
    /// and returns `nil`.
    public func record(_ element: Element, at index: Int) -> [Element]? {
        let last = lock.withLock { progress -> Bool in
            guard !progress.done, !progress.filled[index] else { return false }
            (slots + index).initialize(to: element)
            progress.filled[index] = true
            progress.remaining -= 1
            guard progress.remaining == 0 else { return false }
            progress.done = true
            progress.filled = []
            return true
        }
        guard last else { return nil }
        // Done: no other call touches the slots any more, and the lock published every write.
        return Array(unsafeUninitializedCapacity: count) { buffer, initialized in
            if let base = buffer.baseAddress { base.moveInitialize(from: slots, count: count) }
            initialized = count
        }
    }

    /// Marks the combinator finished early and drops every value it holds (C5.5); `true` the
    /// first time, `false` once done.
    public func finish() -> Bool {
        let filled = lock.withLock { progress -> [Bool]? in
            guard !progress.done else { return nil }
            progress.done = true
            defer { progress.filled = [] }
            return progress.filled
        }
        guard let filled else { return false }
        // Done: no other call touches the slots any more. The values go outside the lock, so
        // that a value's deinit that reaches this combinator again cannot deadlock.
        for index in filled.indices where filled[index] { (slots + index).deinitialize(count: 1) }
        return true
    }
}

/// A `Collector`'s progress, outside the class: a type nested in a generic class is generic too,
/// and would cost a metadata lookup per use in unspecialized code.
private struct CollectorProgress {
    var remaining: Int
    /// Set once: by the last `record` (values handed out) or by `finish` (values dropped).
    var done = false
    /// Which slots hold a value; emptied when `done` is set.
    var filled: [Bool]
}
