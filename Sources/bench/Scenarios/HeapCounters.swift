import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Heap figures for the memory scenario: bytes in use from glibc's `mallinfo2`, and a count of
/// Swift heap objects (class instances, closure contexts, boxes, array buffers) from the Swift
/// runtime's `_swift_allocObject` hook. Malloc calls made outside Swift objects (Dispatch's own
/// blocks, for one) show in the bytes but not in the count.
enum HeapCounters {
    typealias AllocObject = @convention(c) (UnsafeRawPointer?, Int, Int) -> UnsafeMutableRawPointer?

    // nonisolated(unsafe): written only by `install()`, on the main thread, before the hook that
    // reads it is published, and never changed afterwards.
    nonisolated(unsafe) private static var original: AllocObject?
    private static let allocations = Atomic<Int>(0)
    private static let counting: AllocObject = { metadata, size, alignMask in
        HeapCounters.allocations.add(1, ordering: .relaxed)
        return HeapCounters.original?(metadata, size, alignMask)
    }

    /// The runtime's hook slot: a pointer-sized global holding the allocation function.
    private static var hookSlot: UnsafeMutablePointer<AllocObject?>? {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "_swift_allocObject") else { return nil }
        return symbol.assumingMemoryBound(to: AllocObject?.self)
    }

    /// Starts counting Swift allocations; `false` if this runtime has no hook.
    static func install() -> Bool {
        guard let slot = hookSlot else { return false }
        if original == nil { original = slot.pointee }
        guard original != nil else { return false }
        // Safe: the slot is a word-sized function pointer that the runtime reads on every
        // allocation; the counting hook forwards to the original, so either value is valid.
        slot.pointee = counting
        return true
    }

    /// Stops counting: restores the runtime's own allocation function.
    static func uninstall() {
        guard let slot = hookSlot, let original else { return }
        slot.pointee = original
    }

    static var allocationCount: Int { allocations.load(ordering: .relaxed) }

    /// Bytes allocated from malloc (`uordblks + hblkhd` of `mallinfo2`), or `nil` off x86-64 glibc.
    static func bytesInUse() -> Int? {
        #if arch(x86_64) && canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallinfo2") else { return nil }
        // `struct mallinfo2` (ten size_t fields) is not imported into Swift. On x86-64 SysV a C
        // function returning a struct this large takes the address to fill as a hidden first
        // argument and returns it, so calling it as `(pointer) -> pointer` is the exact C ABI.
        typealias MallInfo2 = @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer?
        let mallinfo2 = unsafeBitCast(symbol, to: MallInfo2.self)
        var fields = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &fields) { buffer -> Int? in
            guard let base = buffer.baseAddress else { return nil }
            _ = mallinfo2(base)
            let hblkhd = buffer.load(fromByteOffset: 4 * 8, as: Int.self)
            let uordblks = buffer.load(fromByteOffset: 7 * 8, as: Int.self)
            return uordblks + hblkhd
        }
        #else
        return nil
        #endif
    }

    /// Bytes and Swift allocations made by `body`, per `count` units.
    static func measure(per count: Int, _ body: () -> Void) -> (bytes: Double?, allocations: Double) {
        let bytes0 = bytesInUse()
        let allocs0 = allocationCount
        body()
        let allocs1 = allocationCount
        let bytes1 = bytesInUse()
        let bytes = bytes0.flatMap { b0 in bytes1.map { Double($0 - b0) / Double(count) } }
        return (bytes, Double(allocs1 - allocs0) / Double(count))
    }
}
