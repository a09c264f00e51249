import BackendActors
import BackendGCD
import BackendThreads
import TaskAPI

/// Every backend the benchmark knows, by its `name` (`--backends` selects among them). Adding a
/// backend to the benchmark is one line here, like `ThreadsBackend(),` below.
let backendRegistry: [any TaskBackend] = [
    GCDBackend(),
    ThreadsBackend(),
    ActorsBackend()
]

/// The raw baseline a backend's figure is divided by where a scenario measures several: the code
/// its users would otherwise write by hand (threads: a condition-variable hand-off; actors: Swift
/// concurrency; anything else: Dispatch).
func matchingBaseline(for backend: any TaskBackend) -> String {
    switch backend.name {
    case "threads": return "pthreads"
    case "actors": return "swift"
    default: return "dispatch"
    }
}

/// The executors a scenario runs a backend's continuations on.
enum ExecutorKind: String, CaseIterable, Sendable {
    case inline
    case `default`
    case serial

    func make(for backend: any TaskBackend) -> any AsyncTaskExecutor {
        switch self {
        case .inline: return backend.inlineExecutor
        case .default: return backend.defaultExecutor
        case .serial: return backend.makeSerialExecutor(label: "bench.serial")
        }
    }
}
