import TaskAPI

/// Supplies the executors a program names: the seam where controlled mode wraps the backend's
/// executors in `InterposedExecutor`s (the scheduler decides when a job is handed over, the
/// backend's executor runs it). Called once per program, before any driver starts.
public protocol ExecutorProvider: Sendable {
    /// The executor for each `ExecutorRef` of `program`, made for `backend`.
    func makeExecutors(for program: Program, backend: any TaskBackend) -> ProgramExecutors
}

/// The executors of one program run.
public struct ProgramExecutors: Sendable {
    public var defaultExecutor: any AsyncTaskExecutor
    public var inlineExecutor: any AsyncTaskExecutor
    public var serial: [any AsyncTaskExecutor]
    public var counting: [CountingExecutor]

    public init(
        defaultExecutor: any AsyncTaskExecutor, inlineExecutor: any AsyncTaskExecutor, serial: [any AsyncTaskExecutor],
        counting: [CountingExecutor]
    ) {
        self.defaultExecutor = defaultExecutor
        self.inlineExecutor = inlineExecutor
        self.serial = serial
        self.counting = counting
    }

    public subscript(ref: ExecutorRef) -> any AsyncTaskExecutor {
        switch ref {
        case .default: return defaultExecutor
        case .inline: return inlineExecutor
        case .serial(let n): return serial[n]
        case .counting(let n): return counting[n]
        }
    }
}

/// The default provider: the backend's own executors, new serial executors (each odd one made
/// with `makeActorExecutor(label:)`, C9.9, or `makeSerialExecutor` if the backend has none), and
/// counting executors that forward to the backend's default executor.
public struct BackendExecutorProvider: ExecutorProvider {
    public init() {}

    public func makeExecutors(for program: Program, backend: any TaskBackend) -> ProgramExecutors {
        func serial(_ index: Int) -> any AsyncTaskExecutor {
            let label = "conformance.serial\(index)"
            guard index % 2 == 1, let actorExecutor = backend.makeActorExecutor(label: label) else {
                return backend.makeSerialExecutor(label: label)
            }
            return actorExecutor
        }
        return ProgramExecutors(
            defaultExecutor: backend.defaultExecutor,
            inlineExecutor: backend.inlineExecutor,
            serial: (0..<program.serialExecutors).map(serial),
            counting: (0..<program.countingExecutors).map { CountingExecutor(id: $0, target: backend.defaultExecutor) }
        )
    }
}
