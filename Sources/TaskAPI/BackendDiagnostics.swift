import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Conditions a backend reports that are not the failure of any one call.
///
/// It lives in TaskAPI, beside `BlockingThreads` and `BackendConfigurationError`, so that a user of
/// one backend reads and redirects its reports with the two imports that backend needs
/// (`import TaskAPI`, `import BackendThreads`); any backend, ours or not, may report through it.
public enum BackendDiagnostics {
    /// A backend reached its limit of threads for blocked bodies (`BlockingThreads`).
    public struct ThreadLimitReached: Sendable, CustomStringConvertible {
        /// The backend's name.
        public let backend: String
        /// The limit in force.
        public let limit: Int

        public init(backend: String, limit: Int) {
            self.backend = backend
            self.limit = limit
        }

        public var description: String {
            "\(backend): \(limit) threads were added for bodies blocked in wait(), the limit "
                + "(maxBlockedThreads); queued work now waits until a blocked body returns"
        }
    }

    private static let handler = Mutex<@Sendable (ThreadLimitReached) -> Void>(Self.printToStandardError)

    /// The default handler: one line on standard error.
    public static let printToStandardError: @Sendable (ThreadLimitReached) -> Void = { event in
        let line = Array("warning: \(event)\n".utf8)
        // write(2) on descriptor 2: no shared `FILE *`, nothing to synchronise.
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// Replaces the handler called when a pool reaches its limit; each pool calls it at most once.
    /// The handler runs on the thread that hit the limit, without any lock of the backend held.
    public static func onThreadLimitReached(_ handler: @escaping @Sendable (ThreadLimitReached) -> Void) {
        self.handler.withLock { $0 = handler }
    }

    /// Reports `event` to the current handler.
    public static func report(_ event: ThreadLimitReached) {
        let current = handler.withLock { $0 }
        current(event)
    }
}
