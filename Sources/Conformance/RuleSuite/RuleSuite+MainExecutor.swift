import Foundation
import TaskAPI

extension RuleSuite {
    /// Who serves the backend's main loop while `runMainExecutorChecks` runs (C9.8).
    public enum MainLoopService: Sendable, Equatable {
        /// The call serves it itself, with `backend.runMainLoop(until:)`, on the process's main
        /// thread, which it must be called on: an executable's top-level code. Every backend's
        /// main executor can be checked this way.
        case servedByTheChecks
        /// The process's main thread serves it already (`dispatchMain()`, an app's run loop; in a
        /// Swift Testing exit test's child process on Linux, Dispatch serves the main queue, and
        /// with it a main executor that is the main actor's or the main queue's): the call
        /// blocks its own thread, which must be another one, while the checks wait for the jobs.
        case servedByTheProcess
    }

    /// The checks of the main executor's jobs (C9.8's main thread, order and one job at a time,
    /// C7.3's each job once, C9.7's `isCurrent`, C9.10's `@MainActor` bodies of every form, C4.3's
    /// cancelled token, C9.8's refusals to serve off the main thread and inside a job), which
    /// `RuleSuite.checks` leaves out: their jobs run only while the process's main thread serves
    /// the backend's main loop, which a test process's main thread does not do. Run them with
    /// `runMainExecutorChecks`; one run alone blocks forever waiting for the jobs.
    public static let mainExecutorChecks: [RuleCheck] = [
        RuleCheck(
            .c9_8, "the main executor runs its jobs on the main thread, in submission order, one at a time",
            C9MainExecutor.jobsOnTheMainThread),
        RuleCheck(.c7_3, "the main executor runs each job exactly once", C9MainExecutor.eachJobOnce),
        RuleCheck(.c9_7, "the main executor's isCurrent is true inside its jobs only", C9MainExecutor.isCurrent),
        RuleCheck(
            .c9_10, "every continuation form on the main executor runs its @MainActor body once, on the main actor, as its job",
            C9MainExecutor.everyForm),
        RuleCheck(
            .c4_3, "a body on the main executor whose token is cancelled before it starts never runs, and its task is cancelled",
            C9MainExecutor.cancelledToken),
        RuleCheck(
            .c9_8, "runMainLoop(until:) and runMainLoop() return false at once inside a main-executor job and off the main thread",
            C9MainExecutor.refusesOffTheMainThread)
    ]

    /// Runs the main-executor checks (`mainExecutorChecks`) against `backend` and returns what
    /// they found, in the rule suite's words: a `RuleSuiteReport` of `RuleFailure`s.
    ///
    /// With `.servedByTheChecks` (the default) it must be called on the process's main thread,
    /// from an executable's top-level code, and serves the backend's main loop there with
    /// `backend.runMainLoop(until:)` while the checks run on threads of their own:
    ///
    ///     // Sources/check-main-executor/main.swift
    ///     import Conformance
    ///     let report = try RuleSuite.runMainExecutorChecks(MyBackend())
    ///     print(report)
    ///     exit(report.passed ? 0 : 1)
    ///
    /// With `.servedByTheProcess` the process's main thread already serves the main executor
    /// (a Swift Testing exit test's child process on Linux, for a main executor that is the main
    /// actor's or the main queue's) and it must be called from another thread.
    ///
    /// A `runMainLoop(until:)` that returns `false` on the main thread, or returns before its
    /// task completed, is a failure of C9.8; a main loop that never returns once its task has
    /// completed blocks this call (run it in a child process with a time limit). Each check has
    /// `configuration.ruleTimeLimit` and `configuration.timingSlack`, and its progress lines go
    /// to `configuration.output`.
    ///
    /// - Throws: `MainExecutorCheckError` when called where the main loop cannot be served as
    ///   `mainLoop` says (off the main thread for `.servedByTheChecks`, on it for
    ///   `.servedByTheProcess`, inside a main-executor job): nothing was checked.
    public static func runMainExecutorChecks(
        _ backend: any TaskBackend, mainLoop: MainLoopService = .servedByTheChecks, checks: [RuleCheck] = RuleSuite.mainExecutorChecks,
        configuration: ConformanceConfiguration = ConformanceConfiguration(output: { _ in }),
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) throws(MainExecutorCheckError) -> RuleSuiteReport {
        MainThreadContext.prepare()
        guard !backend.mainExecutor.isCurrent else { throw .insideAMainExecutorJob }
        let session = RuleSuiteSession(
            backend: backend, checks: checks, configuration: configuration,
            callSite: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
        switch mainLoop {
        case .servedByTheProcess:
            guard !MainThreadContext.isCurrent else { throw .onTheMainThread }
            return session.run()
        case .servedByTheChecks:
            guard MainThread.isCurrent else { throw .notOnTheMainThread }
            return serve(backend, while: session)
        }
    }

    /// Runs `session` on a thread of its own while the calling thread, the main one, serves the
    /// backend's main loop until the session is over.
    private static func serve(_ backend: any TaskBackend, while session: RuleSuiteSession) -> RuleSuiteReport {
        // A completed task first: a main loop that will not serve on the main thread would
        // leave every check waiting for jobs that never run.
        guard backend.runMainLoop(until: backend.succeeded(())) else {
            var report = RuleSuiteReport(backend: backend.name, checks: [], failures: [], duration: .zero)
            report.failures.append(
                session.serveFailure(
                    "runMainLoop(until:) serves the main executor on the process's main thread, returning true once its task completed",
                    call: "backend.runMainLoop(until: backend.succeeded(())) on the main thread", expected: "true",
                    observed: "false: no main-executor check ran"))
            return report
        }
        let finished = backend.makeSource(of: Void.self)
        let result = PlainLocked<RuleSuiteReport?>(nil)
        let over = DispatchSemaphore(value: 0)
        let thread = Thread {
            result.withLock { $0 = session.run() }
            finished.trySucceed()
            over.signal()
        }
        thread.stackSize = 4 << 20
        thread.start()
        let served = backend.runMainLoop(until: finished.task)
        let completedWhenItReturned = finished.task.isCompleted
        over.wait()
        var report = result.withLock { $0 } ?? RuleSuiteReport(backend: backend.name, checks: [], failures: [], duration: .zero)
        if !served || !completedWhenItReturned {
            report.failures.append(
                session.serveFailure(
                    "runMainLoop(until:) serves the main executor on the main thread until its task has completed, then returns true",
                    call: "backend.runMainLoop(until: the checks' end) on the main thread",
                    expected: "true, once the task completed",
                    observed: served ? "true before the task completed" : "false"))
        }
        return report
    }
}

extension RuleSuiteSession {
    /// A failure of C9.8 found by `runMainExecutorChecks` itself, serving the main loop.
    func serveFailure(_ message: String, call: String, expected: String, observed: String, line: Int = #line) -> RuleFailure {
        RuleFailure(
            backend: backend.name, rule: .c9_8, check: "the main thread serves the main loop", message: message,
            location: CallSite(fileID: #fileID, filePath: #filePath, line: line, column: 0), callSite: callSite,
            call: call, expected: expected, observed: observed)
    }
}
