import BackendActors
import BackendGCD
import BackendThreads
import Conformance
import TaskAPI

/// The package's three backends by name, for tests that take the name as their argument (an exit
/// test can capture a name, not a backend), and one rule check run on each.
enum PackageBackends {
    static let names = ["gcd", "threads", "actors"]

    /// A new backend of that name (GCD for any other).
    static func make(_ name: String) -> any TaskBackend {
        switch name {
        case "threads": ThreadsBackend()
        case "actors": ActorsBackend()
        default: GCDBackend()
        }
    }

    /// The failures of `check` on a new backend named `name`.
    static func failures(of check: RuleCheck, on name: String) async -> [RuleFailure] {
        await RuleSuite.run(check, on: make(name))
    }
}
