import Synchronization
import TaskAPI

/// For each `T` that `run` has made a task of: `RunTask<T>`'s metadata and the witness table of
/// its `AsyncTask` conformance, so that a `run` makes its task and returns it as
/// `any AsyncTask<T>` without the runtime's lookups.
///
/// Why: a backend's `run` is called through the protocol's witness table, unspecialized. There,
/// `RunTask<T>(...)` looks the class's metadata up in the runtime's cache of generic metadata
/// (`swift_getGenericMetadata`: a hash, a probe and a key comparison, about 330 instructions per
/// call, callgrind) and returning the task as `any AsyncTask<T>` looks up the conformance's witness
/// table for that class (`swift_getWitnessTable`, about 100), at every call. Here both come from a
/// table of `capacity` slots indexed by a hash of `T`'s metadata address.
///
/// Each slot is set once, by a compare-and-exchange from empty, to an entry that is never freed
/// (at most `capacity` entries of three words in a process); a type whose slot another type
/// took keeps the runtime's path. An entry is written before it is published (releasing) and read
/// after the slot is (acquiring). Type metadata and witness tables live as long as the process,
/// so the addresses an entry holds stay valid.
enum RunTaskTypes {
    /// `RunTask<T>`'s metadata and witness table for one `T`, as addresses.
    private struct Entry {
        /// `T`'s metadata.
        let key: UInt
        let type: UnsafeRawPointer
        let witnessTable: UnsafeRawPointer
    }

    /// A class-bound existential of one protocol, as the Swift ABI lays it out (the class
    /// existential container): the reference, then the conformance's witness table. Its
    /// reference is a strong one, as the existential's is, so reading one as the other (a copy)
    /// keeps the reference counts right; `record` checks the layout against the compiler's own
    /// existential before any entry is made from it. (Not `unsafeBitCast`: this toolchain
    /// folds its size check for `any AsyncTask<T>` in unspecialized code into a trap.)
    private struct TaskExistential {
        let object: TaskCore
        let witnessTable: UnsafeRawPointer
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

    /// `RunTask<T>`'s type and witness table if they were recorded; `nil` otherwise.
    @inline(__always)
    static func cached<T: Sendable>(_: T.Type) -> (type: RunTask<T>.Type, witnessTable: UnsafeRawPointer)? {
        let key = key(T.self)
        let word = slots[slot(of: key)].load(ordering: .acquiring)
        guard let entry = UnsafePointer<Entry>(bitPattern: word), entry.pointee.key == key else { return nil }
        // The entry was made from `RunTask<T>`'s own metadata (`record`).
        return (unsafeBitCast(entry.pointee.type, to: RunTask<T>.Type.self), entry.pointee.witnessTable)
    }

    /// `task` as `any AsyncTask<T>`, built from `witnessTable`, the conformance's for its class
    /// (`cached`).
    @inline(__always)
    static func existential<T: Sendable>(_ task: RunTask<T>, _ witnessTable: UnsafeRawPointer) -> any AsyncTask<T> {
        var parts = TaskExistential(object: task, witnessTable: witnessTable)
        let existential = load(&parts, of: T.self)
        assert(existential === task, "RunTaskTypes: an existential built around another object")
        return existential
    }

    /// The existential whose parts `parts` holds. Through a typed pointer, not `load(as:)`: the
    /// raw load asks for the type's alignment, which unspecialized code reads from the
    /// existential's runtime metadata, looked up at each call.
    @inline(__always)
    private static func load<T: Sendable>(_ parts: UnsafeMutablePointer<TaskExistential>, of _: T.Type) -> any AsyncTask<T> {
        UnsafeMutableRawPointer(parts).assumingMemoryBound(to: (any AsyncTask<T>).self).pointee
    }

    /// Records `RunTask<T>`'s type and the witness table of `existential`, a `RunTask<T>` the
    /// compiler made an `any AsyncTask<T>` of, if `T`'s slot is free. Out of line: the first
    /// `run` of each `T` (and of a `T` whose slot is taken) only.
    @inline(never)
    static func record<T: Sendable>(_: T.Type, _ existential: any AsyncTask<T>) {
        let key = key(T.self)
        let slot = slot(of: key)
        guard slots[slot].load(ordering: .relaxed) == 0 else { return }
        var copy = existential
        let parts = withUnsafeMutablePointer(to: &copy) {
            UnsafeMutableRawPointer($0).assumingMemoryBound(to: TaskExistential.self).pointee
        }
        // The layout as assumed: the reference first. Checked in every build, once per type:
        // an entry made from another layout would hand out broken existentials.
        guard parts.object === existential, type(of: parts.object) == RunTask<T>.self else { return }
        let entry = UnsafeMutablePointer<Entry>.allocate(capacity: 1)
        entry.initialize(
            to: Entry(
                key: key, type: unsafeBitCast(RunTask<T>.self, to: UnsafeRawPointer.self),
                witnessTable: parts.witnessTable))
        let published = slots[slot].compareExchange(
            expected: 0, desired: UInt(bitPattern: entry), ordering: .releasing
        ).exchanged
        if !published { entry.deallocate() }
    }
}
