import Dispatch
import Foundation
import Synchronization

/// The child processes a run starts (stack probes, allocation probes, valgrind), so that SIGINT
/// or SIGTERM to the benchmark stops them too instead of leaving them running.
enum Children {
    private struct State {
        var running: Set<Int32> = []
        /// Set once a signal arrived: a child started after that is stopped at once.
        var stopping = false
    }

    private static let state = Mutex(State())

    /// Starts `process` and records its pid until `finished` is called. Starting and recording
    /// happen under one lock, which the signal handler also takes: no child slips between them.
    static func launch(_ process: Process) throws {
        try state.withLock { state in
            try process.run()
            state.running.insert(process.processIdentifier)
            if state.stopping { kill(process.processIdentifier, SIGTERM) }
        }
    }

    /// What a child that ran to its end left: its exit status and its standard output.
    struct Exit {
        var status: Int32
        var output: String
        /// The output without surrounding white space.
        var trimmed: String { output.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// Runs `path` with `arguments` (and `environment`, or this process's) to its end, its standard
    /// error discarded; `nil` if it could not start. The whole output is read before waiting: a
    /// child's output can exceed the pipe's buffer.
    static func run(_ path: String, _ arguments: [String], environment: [String: String]? = nil) -> Exit? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try launch(process) } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        finished(process)
        return Exit(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    /// Forgets a child that has exited.
    static func finished(_ process: Process) {
        _ = state.withLock { $0.running.remove(process.processIdentifier) }
    }

    /// From now on SIGINT and SIGTERM send SIGTERM to every running child, then end the
    /// benchmark with the conventional status 128 + signal.
    static func stopOnSignals() {
        for signo in [SIGINT, SIGTERM] {
            // The default action would end the benchmark before it stops its children: ignore the
            // signal and handle it on a Dispatch queue instead.
            signal(signo, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signo, queue: .global())
            source.setEventHandler {
                state.withLock { state in
                    state.stopping = true
                    for pid in state.running { kill(pid, SIGTERM) }
                }
                printError("bench: stopped by signal \(signo)")
                exit(128 + signo)
            }
            source.resume()
            // The sources live as long as the process: one deliberate reference, never released.
            _ = Unmanaged.passRetained(source as AnyObject)
        }
    }
}
