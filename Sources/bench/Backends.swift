import BackendActors
import BackendGCD
import BackendThreads
import TaskAPI

/// Every backend the benchmark knows, by its `name` (`--backends` selects among them). Adding a
/// backend to the benchmark is one line here: `ThreadsBackend(),` or `ActorsBackend(),` (every
/// backend module is imported above already).
let backendRegistry: [any TaskBackend] = [
    GCDBackend(),
    ActorsBackend(),
]

/// The executors a scenario runs a backend's continuations on.
enum ExecutorKind: String, CaseIterable, Sendable {
    case inline
    case `default`
    case serial

    func make(for backend: any TaskBackend) -> any Executor {
        switch self {
        case .inline: return backend.inlineExecutor
        case .default: return backend.defaultExecutor
        case .serial: return backend.makeSerialExecutor(label: "bench.serial")
        }
    }
}
