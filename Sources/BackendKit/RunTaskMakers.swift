import Synchronization
import TaskAPI

/// For each `T` that `run` has made a task of: the maker of `RunTask<T>` (`RunTaskMaker<T>`), so
/// that a `run` makes its task and returns it as `any AsyncTask<T>` with no runtime lookup.
///
/// Why: a backend's `run` is called through the protocol's witness table, unspecialized. There,
/// `RunTask<T>(...)` looks the class's metadata up in the runtime's cache of generic metadata
/// (`swift_getGenericMetadata`: a hash, a probe and a key comparison, about 330 instructions per
/// call, callgrind), and returning the task as `any AsyncTask<T>` looks up the conformance's
/// witness table with that metadata (`swift_getWitnessTable`, about 100), at every call. Here
/// the maker comes from a table of `capacity` slots indexed by a hash of `T`'s metadata address;
/// the maker's own class metadata holds `RunTask<T>`'s metadata and witness table (its generic
/// arguments), which its `make` uses as they are.
///
/// Each slot is set once, by a compare-and-exchange from empty, to an entry that is never freed
/// (at most `capacity` entries of two words and `capacity` makers in a process); a type whose
/// slot another type took keeps the runtime's path. An entry is written before it is published
/// (releasing) and read after the slot is (acquiring). Type metadata lives as long as the
/// process, so the key an entry holds stays valid; the entry holds its maker retained.
enum RunTaskMakers {
    /// The maker of `RunTask<T>` for one `T`.
    private struct Entry {
        /// `T`'s metadata, as an address.
        let key: UInt
        /// A `RunTaskMaker<T>` (`Unmanaged`'s opaque form), retained by the entry, which is never
        /// freed.
        let maker: UnsafeMutableRawPointer
    }

    /// The slots' count is 2 to this power.
    private static let slotBits = 6
    static let capacity = 1 << slotBits

    /// The address of the slots (`capacity` atomics, each 0 or the address of an `Entry`), 0
    /// until the first `record` makes them; never freed. An atomic, which Swift initializes
    /// statically: a `static let` of the slots' pointer, made by a closure, was initialized
    /// lazily, and every `run` called `swift_once` to reach it (about 10 instructions,
    /// callgrind, fan-out).
    private static let table = Atomic<UInt>(0)

    /// The slots, made by the first call that finds none (acquiring: the slots' initialization
    /// happened before their address was published).
    private static func slots() -> UnsafeMutablePointer<Atomic<UInt>> {
        if let slots = UnsafeMutablePointer<Atomic<UInt>>(bitPattern: table.load(ordering: .acquiring)) { return slots }
        let made = UnsafeMutablePointer<Atomic<UInt>>.allocate(capacity: capacity)
        for index in 0..<capacity { (made + index).initialize(to: Atomic(0)) }
        let (exchanged, original) = table.compareExchange(
            expected: 0, desired: UInt(bitPattern: made), ordering: .acquiringAndReleasing)
        guard !exchanged, let slots = UnsafeMutablePointer<Atomic<UInt>>(bitPattern: original) else { return made }
        // Another call published its slots first: this call's were never shared.
        made.deinitialize(count: capacity)
        made.deallocate()
        return slots
    }

    /// The key of `T`: its metadata's address.
    @inline(__always)
    private static func key<T>(_: T.Type) -> UInt {
        UInt(bitPattern: ObjectIdentifier(T.self))
    }

    /// The slot of `key`: its top `slotBits` bits after a multiplicative hash (metadata
    /// addresses are aligned, so their low bits say little).
    @inline(__always)
    private static func slot(of key: UInt) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> (UInt.bitWidth - slotBits))
    }

    /// Runs `body` with the maker of `RunTask<T>` if it was recorded; `nil` otherwise. The maker
    /// is lent for the call: the entry holds it for the life of the process.
    @inline(__always)
    static func withMaker<T: Sendable, R>(of _: T.Type, _ body: (RunTaskMaker<T>) -> R) -> R? {
        guard let slots = UnsafeMutablePointer<Atomic<UInt>>(bitPattern: table.load(ordering: .acquiring)) else { return nil }
        let key = key(T.self)
        let word = slots[slot(of: key)].load(ordering: .acquiring)
        guard let entry = UnsafePointer<Entry>(bitPattern: word), entry.pointee.key == key else { return nil }
        // The entry was made for this `T` (`record`), with a `RunTaskMaker<T>`: the reference is
        // one of that class, and the entry keeps it alive (never released).
        let maker = Unmanaged<RunTaskMaker<T>>.fromOpaque(entry.pointee.maker)
        return maker._withUnsafeGuaranteedRef { maker in
            assert(
                type(of: maker) == RunTaskMakerOf<RunTask<T>>.self,
                "RunTaskMakers: the entry of \(T.self) holds \(type(of: maker))")
            return body(maker)
        }
    }

    /// Records the maker of `RunTask<T>` if `T`'s slot is free. Out of line: the first `run` of
    /// each `T` (and of a `T` whose slot is taken) only.
    @inline(never)
    static func record<T: Sendable>(_: T.Type) {
        let slots = slots()
        let key = key(T.self)
        let slot = slot(of: key)
        guard slots[slot].load(ordering: .relaxed) == 0 else { return }
        let maker: RunTaskMaker<T> = RunTaskMakerOf<RunTask<T>>()
        let entry = UnsafeMutablePointer<Entry>.allocate(capacity: 1)
        entry.initialize(to: Entry(key: key, maker: Unmanaged.passRetained(maker).toOpaque()))
        let published = slots[slot].compareExchange(
            expected: 0, desired: UInt(bitPattern: entry), ordering: .releasing
        ).exchanged
        if !published {
            Unmanaged<RunTaskMaker<T>>.fromOpaque(entry.pointee.maker).release()
            entry.deinitialize(count: 1)
            entry.deallocate()
        }
    }
}
