import Synchronization
import TaskAPI

/// For each `T` that `run` has made a task of: `RunTask<T>`'s metadata, so that a `run` makes its
/// task without the runtime's lookup of it.
///
/// Why: a backend's `run` is called through the protocol's witness table, unspecialized. There,
/// `RunTask<T>(...)` looks the class's metadata up in the runtime's cache of generic metadata
/// (`swift_getGenericMetadata`: a hash, a probe and a key comparison, about 330 instructions per
/// call, callgrind), at every call. Here it comes from a table of `capacity` slots indexed by a
/// hash of `T`'s metadata address.
///
/// Each slot is set once, by a compare-and-exchange from empty, to an entry that is never freed
/// (at most `capacity` entries of two words in a process); a type whose slot another type took
/// keeps the runtime's path. An entry is written before it is published (releasing) and read
/// after the slot is (acquiring). Type metadata lives as long as the process, so the addresses
/// an entry holds stay valid.
///
/// Returning the task as `any AsyncTask<T>` still looks up the conformance's witness table
/// (`swift_getWitnessTable`, about 100 instructions, its own cache). Building the existential
/// from a cached witness table saved those, but only by writing the class existential's two
/// words through a pointer to another type, which the optimizer's type-based alias analysis is
/// free to break; it is not done.
enum RunTaskTypes {
    /// `RunTask<T>`'s metadata for one `T`, as addresses.
    private struct Entry {
        /// `T`'s metadata.
        let key: UInt
        let type: UnsafeRawPointer
    }

    /// The slots' count is 2 to this power.
    private static let slotBits = 6
    static let capacity = 1 << slotBits

    /// The slots: 0 or the address of an `Entry`. `nonisolated(unsafe)`: the pointer itself never
    /// changes after its one initialization, and every slot is an atomic.
    private nonisolated(unsafe) static let slots: UnsafeMutablePointer<Atomic<UInt>> = {
        let slots = UnsafeMutablePointer<Atomic<UInt>>.allocate(capacity: capacity)
        for index in 0..<capacity { (slots + index).initialize(to: Atomic(0)) }
        return slots
    }()

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

    /// `RunTask<T>`'s type if it was recorded; `nil` otherwise.
    @inline(__always)
    static func cached<T: Sendable>(_: T.Type) -> RunTask<T>.Type? {
        let key = key(T.self)
        let word = slots[slot(of: key)].load(ordering: .acquiring)
        guard let entry = UnsafePointer<Entry>(bitPattern: word), entry.pointee.key == key else { return nil }
        // The entry was made from `RunTask<T>`'s own metadata (`record`): a class's metatype is
        // the address of its metadata.
        let type = unsafeBitCast(entry.pointee.type, to: RunTask<T>.Type.self)
        assert(type == RunTask<T>.self, "RunTaskTypes: the entry of \(T.self) holds \(type)")
        return type
    }

    /// Records `RunTask<T>`'s type if `T`'s slot is free. Out of line: the first `run` of each `T`
    /// (and of a `T` whose slot is taken) only.
    @inline(never)
    static func record<T: Sendable>(_: T.Type) {
        let key = key(T.self)
        let slot = slot(of: key)
        guard slots[slot].load(ordering: .relaxed) == 0 else { return }
        let entry = UnsafeMutablePointer<Entry>.allocate(capacity: 1)
        entry.initialize(to: Entry(key: key, type: unsafeBitCast(RunTask<T>.self, to: UnsafeRawPointer.self)))
        let published = slots[slot].compareExchange(
            expected: 0, desired: UInt(bitPattern: entry), ordering: .releasing
        ).exchanged
        if !published { entry.deallocate() }
    }
}
