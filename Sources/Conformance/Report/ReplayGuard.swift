import Foundation

/// Replaying one failure (`CONFORMANCE_REPLAY=<backend>`): the process must run that backend's
/// program, or say loudly that it did not.
enum ReplayGuard {
    private struct State {
        var replaying: String?
        var matched = false
    }

    private static let state = PlainLocked(State())

    /// Called by every `check` under a replay: remembers whether the replayed backend was ever
    /// checked, and at the first call arranges for the process to fail at exit if it never is
    /// (the test filter then matched some other check only).
    /// Only for a replay of this process's own environment
    /// (`ConformanceConfiguration.replayComesFromThisProcess`): a configuration built by hand (a
    /// test of the replay itself) must not fail the process.
    static func noteCheck(replaying name: String, backend: String) {
        let first = state.withLock { state -> Bool in
            defer { state.replaying = name; if name == backend { state.matched = true } }
            return state.replaying == nil
        }
        if first { atexit(replayGuardAtExit) }
    }

    /// Whether a replay never reached its backend; then the message to print.
    fileprivate static var unmatched: String? {
        state.withLock { state in
            guard let name = state.replaying, !state.matched else { return nil }
            return "conformance: CONFORMANCE_REPLAY=\(name) but no check of a backend named \"\(name)\" ran in this "
                + "process: the replay reproduced nothing. Run the exact replay line the failure printed.\n"
        }
    }
}

/// Runs at exit: a replay that checked no backend of its name fails the process.
private func replayGuardAtExit() {
    guard let message = ReplayGuard.unmatched else { return }
    fflush(nil)  // every output stream: what the tests printed comes before the message
    FileHandle.standardError.write(Data(message.utf8))
    _exit(1)
}
