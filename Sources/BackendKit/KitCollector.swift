import Synchronization

/// The values of a kit `whenAll` (`KitJoin`), filled by index from the inputs' reports on any
/// threads without a lock: TaskAPI's `Collector` with atomics in place of its one mutex, which
/// every input's report took in turn, from every thread of a fan-out. The same rules: handed out
/// once, in index order, when the last one is in; dropped at once when the join finishes early
/// (C5.5).
///
/// Each slot has a state byte: empty, filling (a report is writing its value), filled (its
/// value is there) or closed (`finish` came first). A report claims its slot by a
/// compare-and-exchange from empty to filling, so that only one report ever writes it (a second
/// report for one index, an input's backend running its continuation twice, finds it claimed
/// and drops its value instead of writing over the first); it writes its value, marks the slot
/// filled by a compare-and-exchange from filling (releasing), then counts down `remaining`. The
/// one call that sets `done` owns the slots from then on: the report that counted the last one
/// moves every value out; `finish` closes each slot (an exchange), dropping the value of each it
/// finds filled (acquiring it); a report that finds its slot closed when it marks it drops its
/// own value. `remaining` reaches zero only once every slot was marked filled, each mark ordered
/// before the last count by the counts' read-modify-writes.
final class KitCollector<Element>: @unchecked Sendable {
    // @unchecked: `slots[i]` is initialized only by the report for index `i`, before its state
    // byte publishes it (releasing); it is read or deinitialized only by the one call that set
    // `done` (after acquiring the state or the count), or by the report itself if its slot was
    // closed first; `deinit` runs when no other reference is left.

    private let count: Int
    private let slots: UnsafeMutablePointer<Element>
    /// One per slot: `empty`, `filled` or `closed`.
    private let states: UnsafeMutablePointer<Atomic<UInt8>>
    private let remaining: Atomic<Int>
    /// Set once: by the last report (values handed out) or by `finish` (values dropped).
    private let done = Atomic<Bool>(false)

    private static var empty: UInt8 { 0 }
    private static var filling: UInt8 { 1 }
    private static var filled: UInt8 { 2 }
    private static var closed: UInt8 { 3 }

    /// A collector of `count` slots (at least one).
    init(count: Int) {
        self.count = count
        slots = .allocate(capacity: Swift.max(count, 1))
        states = .allocate(capacity: Swift.max(count, 1))
        for index in 0..<count { (states + index).initialize(to: Atomic(Self.empty)) }
        remaining = Atomic(count)
    }

    deinit {
        // Not done: inputs still pending when the join and its inputs were all dropped; the
        // values reported so far are here. Done: moved out or dropped already.
        if !done.load(ordering: .acquiring) {
            for index in 0..<count where states[index].load(ordering: .acquiring) == Self.filled {
                (slots + index).deinitialize(count: 1)
            }
        }
        states.deinitialize(count: count)
        states.deallocate()
        slots.deallocate()
    }

    /// Stores `element` at `index`; returns every element, in index order, when this was the
    /// last one missing. Once the collector is done, or for an index already filled, drops
    /// `element` and returns `nil`.
    func record(_ element: Element, at index: Int) -> [Element]? {
        guard claim(index) else { return nil }
        (slots + index).initialize(to: element)
        return publish(index)
    }

    /// `record(_:at:)` of a copy of the value at `source` (a kit input's value in its task,
    /// `KitTask.recordValue(in:at:)`), made straight into the slot: a value of a trivial type (integers,
    /// floats, plain structs of them) as its bytes, any other through one copy. In unspecialized
    /// code a value passed to `record(_:at:)` was copied out of the input, into the slot and
    /// destroyed through its value witnesses (about 60 instructions per input, callgrind,
    /// fan-out).
    func record(copyOf source: UnsafePointer<Element>, at index: Int) -> [Element]? {
        guard claim(index) else { return nil }
        if _isPOD(Element.self) {
            // A trivial type: its bytes are its value, with nothing to retain. A word-sized one
            // (integers, floats, plain structs of them) as one word, unaligned, without the call
            // of `copyMemory` (`memcpy`, about 15 instructions).
            let target = UnsafeMutableRawPointer(slots + index)
            if MemoryLayout<Element>.size == MemoryLayout<UInt>.size {
                target.storeBytes(of: UnsafeRawPointer(source).loadUnaligned(as: UInt.self), as: UInt.self)
            } else {
                target.copyMemory(from: source, byteCount: MemoryLayout<Element>.size)
            }
        } else {
            (slots + index).initialize(to: source.pointee)
        }
        return publish(index)
    }

    /// Claims the empty slot at `index` for a report to write (from empty to filling); `false`
    /// if the collector is done, or the slot was claimed already (a bug of an input's backend:
    /// reported twice) or closed by `finish`: the slot is not the caller's to write.
    @inline(__always)
    private func claim(_ index: Int) -> Bool {
        guard !done.load(ordering: .relaxed) else { return false }
        return states[index].compareExchange(expected: Self.empty, desired: Self.filling, ordering: .relaxed).exchanged
    }

    /// Marks the slot at `index`, which the caller claimed and wrote, filled; returns every
    /// element, in index order, when it was the last one missing.
    @inline(__always)
    private func publish(_ index: Int) -> [Element]? {
        let marked = states[index].compareExchange(
            expected: Self.filling, desired: Self.filled, ordering: .releasing
        ).exchanged
        guard marked else {
            // Closed by `finish` while this call wrote its value: the value is this call's to drop.
            (slots + index).deinitialize(count: 1)
            return nil
        }
        guard remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 else { return nil }
        guard done.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return nil  // `finish` came first and drops the values
        }
        // Every slot is filled and published to this call; no other call touches them now.
        return Array(unsafeUninitializedCapacity: count) { buffer, initialized in
            if let base = buffer.baseAddress { base.moveInitialize(from: slots, count: count) }
            initialized = count
        }
    }

    /// Marks the join finished early and drops every value it holds (C5.5); `true` the first
    /// time, `false` once done.
    func finish() -> Bool {
        guard done.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return false
        }
        for index in 0..<count {
            // A slot being filled is closed too: its report then fails to mark it and drops its
            // own value.
            if states[index].exchange(Self.closed, ordering: .acquiring) == Self.filled {
                (slots + index).deinitialize(count: 1)
            }
        }
        return true
    }
}
