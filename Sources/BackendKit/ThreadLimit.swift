import Synchronization
import TaskAPI
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many threads a backend may add for bodies blocked in `wait()` (C6.4), and what happens at
/// the limit.
///
/// A body that blocks in `wait()` on a backend's worker holds that worker; the backend adds a
/// thread so that queued work still runs (16 nested waits complete within a second, C6.4). It
/// adds at most `limit` such threads at once. At the limit, further blocked bodies add no thread:
/// queued work waits until a blocked body returns, and the backend reports this once through
/// `BackendDiagnostics`. Threads added for blocked bodies exit once they are no longer needed.
public enum BlockingThreads {
    /// The default limit: enough for deep nesting and wide blocking fan-outs, far below what
    /// exhausts a process (each thread reserves its stack).
    public static let defaultLimit = 512

    /// The largest limit a backend accepts.
    public static let maximumLimit = 32_768

    /// `limit` if it is valid (1 through `maximumLimit`), else the error that says why.
    public static func validated(_ limit: Int, backend: String) throws(BackendConfigurationError) -> Int {
        guard (1...maximumLimit).contains(limit) else {
            throw BackendConfigurationError(
                backend: backend, parameter: "maxBlockedThreads", value: limit,
                requirement: "between 1 and \(maximumLimit)")
        }
        return limit
    }
}

/// A backend's configuration was invalid: nothing was created. Backends never silently change a
/// value they were given.
public struct BackendConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The backend's name ("gcd", "threads", ...).
    public let backend: String
    /// The parameter that was out of range.
    public let parameter: String
    /// The value given.
    public let value: Int
    /// What the parameter must be.
    public let requirement: String

    public init(backend: String, parameter: String, value: Int, requirement: String) {
        self.backend = backend
        self.parameter = parameter
        self.value = value
        self.requirement = requirement
    }

    public var description: String {
        "BackendConfigurationError: \(backend) \(parameter) must be \(requirement), got \(value)"
    }
}

/// Conditions a backend reports that are not the failure of any one call.
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
            "\(backend): \(limit) threads were added for bodies blocked in wait(), the limit " +
                "(maxBlockedThreads); queued work now waits until a blocked body returns"
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
