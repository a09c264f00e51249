import BackendActors
import BackendGCD
import BackendThreads
import TaskAPI

/// The backends every rule test runs against. Adding a backend is one line here.
enum Backends {
    static let all: [BackendCase] = [
        BackendCase(GCDBackend()),
        BackendCase(ThreadsBackend()),
        BackendCase(ActorsBackend())
    ]

    /// The backend named `name`, for exit tests, which cannot capture an existential.
    static func named(_ name: String) -> (any TaskBackend)? {
        all.first { $0.backend.name == name }?.backend
    }
}

/// A backend as a test argument, shown by its name in test reports.
struct BackendCase: Sendable, CustomStringConvertible {
    let backend: any TaskBackend

    init(_ backend: any TaskBackend) {
        self.backend = backend
    }

    var description: String { backend.name }
    var name: String { backend.name }
}
