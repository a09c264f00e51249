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
