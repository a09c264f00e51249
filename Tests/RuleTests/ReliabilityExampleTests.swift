import BackendThreads
import TaskAPI
import Testing

// The snippets of docs/guides/Reliability.md, verbatim. This file imports what the guide says a
// user of one backend imports, TaskAPI and BackendThreads, and nothing else (not BackendKit):
// `BackendConfigurationError`, `BackendDiagnostics` and `BlockingThreads` must be TaskAPI's for it
// to compile.

/// "A released source fails its task (C8.3)".
func reliabilityReleasedSource() -> Completion<[UInt8]> {
    let backend: any TaskBackend = ThreadsBackend.shared
    var source: (any CompletionSource<[UInt8]>)? = backend.makeSource()
    let task = source!.task
    source = nil  // nobody can complete the task any more
    task.wait()  // .failure(TaskError.abandoned), at once
    return task.wait()
}

/// "Threads for blocked bodies are bounded (C6.4)".
func reliabilityThreadLimit() throws -> ThreadsBackend {
    BackendDiagnostics.onThreadLimitReached { event in
        print("warning: \(event)")  // "threads: 64 threads were added for bodies blocked in wait(), ..."
    }
    let backend = try ThreadsBackend(workers: 4, maxBlockedThreads: 64)
    return backend
}

/// "Bad configuration is an error".
func makeBackend(workers: Int) -> Result<ThreadsBackend, BackendConfigurationError> {
    do {
        return .success(try ThreadsBackend(workers: workers))
    } catch {
        return .failure(error)  // a BackendConfigurationError: backend, parameter, value, requirement
    }
}

@Suite("Reliability guide examples")
struct ReliabilityExampleTests {
    @Test("C8.3 the guide's released source fails its task with TaskError.abandoned")
    func releasedSource() {
        guard case .failure(let error) = reliabilityReleasedSource() else {
            Issue.record("the task of a released source did not fail")
            return
        }
        #expect(error as? TaskError == .abandoned)
    }

    @Test("C6.4 the guide's thread-limit snippet configures the backend it names")
    func threadLimit() throws {
        defer { BackendDiagnostics.onThreadLimitReached(BackendDiagnostics.printToStandardError) }
        let backend = try reliabilityThreadLimit()
        #expect(backend.workerCount == 4)
        #expect(backend.maxBlockedThreads == 64)
        #expect(BlockingThreads.defaultLimit == 512)
    }

    @Test("C6.4 the guide's bad configuration is caught as a BackendConfigurationError")
    func badConfiguration() {
        guard case .failure(let error) = makeBackend(workers: 0) else {
            Issue.record("workers: 0 was accepted")
            return
        }
        #expect(
            error
                == BackendConfigurationError(
                    backend: "threads", parameter: "workers", value: 0, requirement: "between 1 and 4096"))
        #expect(error.description == "BackendConfigurationError: threads workers must be between 1 and 4096, got 0")
        guard case .success(let backend) = makeBackend(workers: 2) else {
            Issue.record("workers: 2 was refused")
            return
        }
        #expect(backend.workerCount == 2)
    }
}
