import BackendThreads
import Conformance
import Dispatch
import Foundation
import TaskAPI
import Testing

@Suite("C9.8 Main executor")
struct C9MainExecutorTests {
    /// A real command-line program, the example `main-executor-example`, run as a child process
    /// for each backend and each way of serving the main executor: its top-level code queues
    /// main-executor jobs and ends with `backend.runMainLoop(until: done)` (which must return on
    /// the main thread once `done` has completed) or `backend.runMainLoop()` (which must not
    /// return; the last job exits), the same call on every backend, with no `import Dispatch`.
    /// It exits 0 when every job ran in order on the main executor with
    /// `MainActor.assumeIsolated` holding, `@MainActor` bodies of `run(on:)` and
    /// `continueWith(on:)` on the main executor and a body on a pinned actor ran there (C9.10),
    /// and both forms refused to serve from inside a main-executor job; a failing
    /// `assumeIsolated` crashes it.
    @Test(
        "C9.8 runMainLoop(until:) and runMainLoop() serve the main executor on a program's main thread, and MainActor.assumeIsolated works in its jobs; C9.10 @MainActor bodies run there",
        arguments: Backends.all, ["until", "forever"])
    func mainExecutorProgram(_ c: BackendCase, _ form: String) throws {
        let program = try #require(MainProbe.exampleURL, "main-executor-example is built next to the tests")
        let process = Process()
        process.executableURL = program
        process.arguments = [c.name, form]
        let output = Pipe()
        process.standardOutput = output
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        if exited.wait(timeout: .now() + .seconds(10)) == .timedOut {
            process.terminate()
            Issue.record("the program's main executor never ran its jobs (\(form))")
            return
        }
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0, "\(printed)")
        #expect(printed == "\(c.name) \(form): ok\n")
    }

    /// In an exit test's child process the main thread is parked in `dispatchMain()` and the
    /// main queue is served by a Dispatch thread, which is the main actor's context on Linux:
    /// GCD's and the actors backend's main executors work there as well. Conformance's
    /// main-executor checks run there (`RuleSuite.runMainExecutorChecks`, served by the process):
    /// every job on the main thread, in order, one at a time, once; `isCurrent`; every
    /// `@MainActor` form; a cancelled token; `runMainLoop`'s refusals.
    @Test(
        "C9.8 the main queue's and the main actor's executors pass the main-executor checks in a process running dispatchMain",
        arguments: Backends.all.filter { $0.name != "threads" })
    func mainExecutorUnderDispatchMain(_ c: BackendCase) async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [name = c.name as String] in
            guard let backend = Backends.named(name) else { exit(3) }
            let report = try RuleSuite.runMainExecutorChecks(backend, mainLoop: .servedByTheProcess)
            FileHandle.standardError.write(Data("\(report)\n".utf8))
            exit(report.passed ? 0 : 1)
        }
        if let result, result.exitStatus != .exitCode(0) {
            Issue.record("\(String(decoding: result.standardErrorContent, as: UTF8.self))")
        }
    }

    @Test("C9.8 the threads main loop runs nothing off the main thread")
    func threadsMainLoopNeedsMainThread() throws {
        let backend = ThreadsBackend()
        let ran = Counter()
        backend.mainExecutor.execute { ran.increment() }
        let task = backend.succeeded(1)
        try #require(!Thread.isMainThread, "this check needs a test thread other than the main one")
        #expect(ThreadsBackend.runMainLoop(until: task) == false)
        #expect(backend.runMainLoop(until: task) == false)
        #expect(backend.runMainLoop() == false)
        #expect(ThreadsBackend.drainMainLoop() == nil)
        #expect(ran.count == 0)
    }

    /// Off the main thread neither form serves anything: both return `false` at once, rather than
    /// taking a thread of the caller's for good (`runMainLoop()`) or never noticing the task.
    @Test("C9.8 runMainLoop(until:) and runMainLoop() return false at once off the main thread", arguments: Backends.all)
    func runMainLoopNeedsMainThread(_ c: BackendCase) throws {
        let backend = c.backend
        try #require(!Thread.isMainThread, "this check needs a test thread other than the main one")
        let pending = backend.makeSource(of: Int.self)
        #expect(backend.runMainLoop(until: pending.task) == false)
        #expect(backend.runMainLoop() == false)
        pending.trySucceed(1)
    }
}

/// Where the example program is.
enum MainProbe {
    /// The example program, built next to the test bundle.
    static var exampleURL: URL? {
        let candidates = [
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(),
            URL(fileURLWithPath: CommandLine.arguments[0]),
            Bundle.main.bundleURL
        ]
        for candidate in candidates {
            var directory = candidate.deletingLastPathComponent()
            for _ in 0..<4 {
                let program = directory.appendingPathComponent("main-executor-example")
                if FileManager.default.isExecutableFile(atPath: program.path) { return program }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }
}
