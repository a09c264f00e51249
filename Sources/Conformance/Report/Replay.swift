import Foundation
import TaskAPI

/// One of `count` disjoint parts of the seed space (`CONFORMANCE_SHARD=k/n`): shard `k` runs the
/// programs with indices `(k-1)·programs ..< k·programs` from the common base seed, so n machines
/// with the same `CONFORMANCE_SEED` never run a program twice.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// 1-based, at most `count`.
    public let index: Int
    public let count: Int

    public init?(index: Int, count: Int) {
        guard count >= 1, index >= 1, index <= count else { return nil }
        self.index = index
        self.count = count
    }

    /// `k/n`, as in `CONFORMANCE_SHARD=2/7`.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }

    /// The program indices this shard runs when each shard runs `programs`.
    public func indices(programs: Int) -> Range<Int> {
        (index - 1) * programs ..< index * programs
    }
}

extension ConformanceConfiguration {
    /// The `swift test --filter` argument selecting exactly one test: `module.Suite/test()` with
    /// every regular-expression character escaped (Swift Testing matches the filter as a regular
    /// expression against that name; XCTest against `module.Class/testMethod`).
    ///
    /// Swift Testing: `testFilter(module: id.moduleName, path: id.nameComponents)` with
    /// `id = Test.current!.id`. XCTest: `testFilter(module: <module>, path: [<Class>, <method>])`.
    public static func testFilter(module: String, path: [String]) -> String {
        let name = ([module].filter { !$0.isEmpty } + [path.joined(separator: "/")]).joined(separator: ".")
        return NSRegularExpression.escapedPattern(for: name)
    }
}

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

enum Shell {
    /// `text` as one shell word: unchanged when it is plain, else in single quotes.
    static func quoted(_ text: String) -> String {
        let plain = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_./:=@%+,"))
        if !text.isEmpty, text.unicodeScalars.allSatisfy(plain.contains) { return text }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
