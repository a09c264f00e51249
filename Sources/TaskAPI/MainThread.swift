#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's main thread, the one a backend's `runMainLoop` serves its main executor on
/// (C9.8).
public enum MainThread {
    /// `true` on the process's main thread. On Linux, the thread whose id is the process id (what
    /// the Swift runtime checks too), read from `/proc/thread-self` ("pid/task/tid"), since
    /// `gettid` is not imported into Swift.
    public static var isCurrent: Bool {
        #if canImport(Darwin)
        return pthread_main_np() != 0
        #else
        var buffer = [CChar](repeating: 0, count: 64)
        let length = readlink("/proc/thread-self", &buffer, buffer.count - 1)
        guard length > 0 else { return false }
        let link = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let parts = link.split(separator: "/")
        return parts.count == 3 && parts[0] == parts[2]
        #endif
    }
}
