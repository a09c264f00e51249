import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Heap figures for the memory scenario.
///
/// - Bytes: glibc's `mallinfo2` (`uordblks + hblkhd`), read in this process before and after;
///   on Darwin, the default malloc zone's `size_in_use` (`malloc_zone_statistics`).
/// - Allocations: counted in a child process (`bench __alloc-probe CASE SUBJECT N`) run with
///   glibc's malloc debugging library preloaded and `mtrace()` on around the measured code: every
///   `malloc`, `calloc` and `memalign` is one `+` line of the trace. Swift objects, closure
///   contexts, array buffers and Dispatch's own blocks all count.
///
/// (The Swift runtime's `_swift_allocObject` hook was tried first: objects allocated through it
/// crashed later retains on this toolchain, so it is not used.)
enum HeapCounters {
    /// `RTLD_DEFAULT` (a null handle): `dlsym` searches every object loaded in the process.
    static var rtldDefault: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: 0) }

    /// A measured region: it runs the code it is given between its two readings.
    typealias Region = (() -> Void) -> Void

    /// Bytes allocated from malloc (`uordblks + hblkhd` of `mallinfo2`; Darwin: every zone's
    /// `size_in_use`), or `nil` elsewhere (glibc off x86-64, musl).
    static func bytesInUse() -> Int? {
        #if canImport(Darwin)
        var statistics = malloc_statistics_t()
        // A nil zone sums every malloc zone of the process.
        malloc_zone_statistics(nil, &statistics)
        return Int(statistics.size_in_use)
        #elseif arch(x86_64) && canImport(Glibc)
        guard let symbol = dlsym(rtldDefault, "mallinfo2") else { return nil }
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

    /// Heap bytes each further unit keeps across `run`'s region: what it keeps at `2 * count`
    /// units minus what it keeps at `count`, divided by `count`. A region also allocates a few
    /// things once (the trace of one pending-task round: 2 allocations per task and 15 more,
    /// whatever the count), which a plain division would spread over the units; the difference
    /// leaves them out.
    static func marginalBytesPerUnit(_ count: Int, _ run: (Int, Region) -> Void) -> Double? {
        var kept: [Double] = []
        for size in [count, 2 * count] {
            run(size) { body in
                let before = bytesInUse()
                body()
                let after = bytesInUse()
                if let before, let after { kept.append(Double(after - before)) }
            }
        }
        guard kept.count == 2 else { return nil }
        return (kept[1] - kept[0]) / Double(count)
    }

    static let debugLibrary = "libc_malloc_debug.so.0"

    /// Allocations each further unit makes in `run`'s region: counted by a child process at
    /// `2 * count` and at `count` units, the difference divided by `count` (see
    /// `marginalBytesPerUnit`); `nil` if the child could not count (no malloc debugging library).
    static func allocationsPerUnit(case name: String, subject: String, count: Int) -> Double? {
        guard let single = allocations(case: name, subject: subject, count: count),
            let double = allocations(case: name, subject: subject, count: 2 * count)
        else { return nil }
        return Double(double - single) / Double(count)
    }

    /// Allocations made in the region of one run of `count` units, in a child process; `nil`
    /// off glibc (Darwin has no `mtrace`: the memory scenario then reports bytes only).
    private static func allocations(case name: String, subject: String, count: Int) -> Int? {
        #if !canImport(Glibc)
        return nil
        #else
        let trace = FileManager.default.temporaryDirectory
            .appendingPathComponent("bench-mtrace-\(getpid())-\(name)-\(subject).txt").path
        defer { try? FileManager.default.removeItem(atPath: trace) }
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = debugLibrary
        environment["MALLOC_TRACE"] = trace
        let exit = Children.run(
            StackScenario.selfPath(), [AllocProbe.command, name, subject, String(count)],
            environment: environment)
        guard let exit, exit.status == 0, exit.trimmed.hasPrefix("ok "), let total = Int(exit.trimmed.dropFirst(3)) else {
            return nil
        }
        return total
        #endif
    }
}

/// The child side of the allocation count: `bench __alloc-probe CASE SUBJECT N` runs one memory
/// case with `mtrace()` on around its region and prints `ok ALLOCATIONS`.
enum AllocProbe {
    static let command = "__alloc-probe"

    static func main(_ arguments: [String]) -> Int32 {
        guard arguments.count == 3, let n = Int(arguments[2]), n > 0,
            let run = MemoryScenario.runner(case: arguments[0], subject: arguments[1])
        else {
            printError("usage: bench \(command) CASE SUBJECT N")
            return 2
        }
        typealias Toggle = @convention(c) () -> Void
        guard let path = ProcessInfo.processInfo.environment["MALLOC_TRACE"],
            let on = debugSymbol("mtrace"), let off = debugSymbol("muntrace")
        else {
            print("no mtrace")
            return 1
        }
        // Both are `void f(void)` in C; the cast only gives the symbol addresses that type.
        let mtrace = unsafeBitCast(on, to: Toggle.self)
        let muntrace = unsafeBitCast(off, to: Toggle.self)
        run(n) { body in
            mtrace()
            body()
            muntrace()
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            print("no trace")
            return 1
        }
        // Lines read "@ caller + 0xADDRESS 0xSIZE" for an allocation, "- 0xADDRESS" for a free.
        let allocations = text.split(separator: "\n").filter { $0.split(separator: " ").contains("+") }.count
        print("ok \(allocations)")
        return 0
    }

    /// `name` from the preloaded malloc debugging library. Its `mtrace` is a non-default
    /// versioned symbol (libc keeps a no-op default), so only `dlvsym` finds it; `dlvsym` itself
    /// is a GNU extension the Glibc module does not import, hence looked up with `dlsym`.
    private static func debugSymbol(_ name: String) -> UnsafeMutableRawPointer? {
        typealias DlvSym =
            @convention(c) (
                UnsafeMutableRawPointer?, UnsafePointer<CChar>, UnsafePointer<CChar>
            ) -> UnsafeMutableRawPointer?
        guard let handle = dlopen(HeapCounters.debugLibrary, RTLD_NOW | RTLD_NOLOAD),
            let symbol = dlsym(HeapCounters.rtldDefault, "dlvsym")
        else { return nil }
        let dlvsym = unsafeBitCast(symbol, to: DlvSym.self)
        return dlvsym(handle, name, "GLIBC_2.2.5")
    }
}
