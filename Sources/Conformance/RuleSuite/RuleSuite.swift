import Foundation
import TaskAPI

/// The contract's hand-written rule checks, framework-free: each check exercises one rule of
/// docs/CONTRACT.md through TaskAPI only, and reports failures as values. `Conformance.checkAll`
/// runs them together with the generated programs; a test suite may also run them one by one
/// (`run(_:on:)`), so that each rule gets a test of its own.
///
/// Not here, because a failure would kill the process running them: C2.7 (stack depth) and the
/// dropped-chain half of C8.2, which `Conformance.checkResources` checks (run by `check` and
/// `checkAll`; put it in a child process to see a stack overflow as a failure). Nor what only a
/// backend's own API can set up: C6.4's limit on blocked threads. Nor the main executor's jobs,
/// which run only while the process's main thread serves the backend's main loop:
/// `runMainExecutorChecks` runs `mainExecutorChecks` where it does.
///
/// A trap cannot be caught either: the checks that hand the backend tasks of a class it does not
/// know (`ForeignInputs`, contract 1.4), where a backend that casts its inputs to its own class
/// traps, name the backend, the rule, the check and the call on standard error before the
/// process dies (`CrashReporter.namingTraps`).
public enum RuleSuite {
    /// The rule ids the checks cover, in the contract's order.
    public static var rules: [Rule] { RuleSuiteReport.rules(of: checks) }

    /// The checks of chapter `chapter` (C`chapter`.x).
    public static func checks(chapter: Int) -> [RuleCheck] {
        checks.filter { $0.chapter == chapter }
    }

    /// How long one check may take before it counts as hung: a failure of its rule, and the
    /// suite goes on (the check's thread stays blocked in the backend). A correct backend needs
    /// a second or two for the slowest check.
    public static let timeLimit: Duration = .seconds(60)

    /// Runs `check` against `backend` and returns its failures (empty: the rule held). The check
    /// runs on a thread of its own (an async one as a Swift task on `AwaitExecutor.shared`), so
    /// that its blocking waits never hold a thread of Swift's cooperative pool, nor wait for one;
    /// one that does not finish within `timeLimit` fails.
    public static func run(
        _ check: RuleCheck, on backend: any TaskBackend, timeLimit: Duration = RuleSuite.timeLimit,
        timingSlack: Duration = TimingSlack.standard,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) async -> [RuleFailure] {
        let context = RuleContext(
            backend: backend, check: check, callSite: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
            timingSlack: timingSlack)
        let finished = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let resume = Once { continuation.resume(returning: $0) }
            start(check, context) { resume(true) }
            DispatchQueue.global().asyncAfter(deadline: (Uptime.now + timeLimit).dispatchTime) { resume(false) }
        }
        return outcome(context, finished: finished, timeLimit: timeLimit)
    }

    /// Runs `check` from synchronous code: the calling thread waits for it (at most `timeLimit`).
    public static func run(
        _ check: RuleCheck, on backend: any TaskBackend, timeLimit: Duration = RuleSuite.timeLimit,
        timingSlack: Duration = TimingSlack.standard,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> [RuleFailure] {
        let context = RuleContext(
            backend: backend, check: check, callSite: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
            timingSlack: timingSlack)
        let done = DispatchSemaphore(value: 0)
        start(check, context) { done.signal() }
        let finished = done.wait(timeout: (Uptime.now + timeLimit).dispatchTime) == .success
        return outcome(context, finished: finished, timeLimit: timeLimit)
    }

    /// Starts the check's body on a thread (or Swift task) of its own; `done` once it returned.
    static func start(_ check: RuleCheck, _ context: RuleContext, done: @escaping @Sendable () -> Void) {
        switch check.body {
        case .sync(let body):
            let thread = Thread {
                finish(context) { try body(context) }
                done()
            }
            thread.stackSize = 4 << 20
            thread.start()
        case .async(let body):
            // On the harness's await thread, not Swift's cooperative pool: tests that block pool
            // threads (synchronous tests, a synchronous check's caller) cannot starve the check.
            Task.detached(executorPreference: AwaitExecutor.shared) {
                do {
                    try await body(context)
                } catch {
                    recordThrown(error, context)
                }
                done()
            }
        }
    }

    /// The failures of a check, plus one for a check still running at its time limit.
    static func outcome(_ context: RuleContext, finished: Bool, timeLimit: Duration, line: Int = #line) -> [RuleFailure] {
        if !finished {
            context.fail(
                "the check \"\(context.check.name)\" finishes within its time limit",
                call: "a call of the check's body into the backend that did not return",
                expected: "done within \(timeLimit)",
                observed: "still running after \(timeLimit): a hang (its thread is left blocked in the backend)", line: line)
        }
        return context.failures
    }

    /// Runs `checks` (all by default) against `backend`, one after the other, each within
    /// `RuleSuite.timeLimit`, printing nothing.
    public static func run(
        _ backend: any TaskBackend, checks: [RuleCheck] = RuleSuite.checks, timingSlack: Duration = TimingSlack.standard,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> RuleSuiteReport {
        RuleSuiteSession(
            backend: backend, checks: checks, timingSlack: timingSlack,
            callSite: CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        ).run()
    }

    /// The same, from async code (on a thread of its own, never one of Swift's cooperative pool).
    public static func run(
        _ backend: any TaskBackend, checks: [RuleCheck] = RuleSuite.checks, timingSlack: Duration = TimingSlack.standard,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) async -> RuleSuiteReport {
        let callSite = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        return await Conformance.onOwnThread {
            RuleSuiteSession(backend: backend, checks: checks, timingSlack: timingSlack, callSite: callSite).run()
        }
    }

    /// Runs `checks` as `configuration` says: its timing slack, `ruleTimeLimit` per check, its
    /// `knownIssues` (their failures go to the report's `knownIssues`), a progress line per
    /// chapter (and one for a check still running after 10 s) on its `output`, and no check
    /// started once its time limit ran out (`checkAll` shares it with the programs).
    public static func run(
        _ backend: any TaskBackend, checks: [RuleCheck] = RuleSuite.checks, configuration: ConformanceConfiguration,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> RuleSuiteReport {
        RuleSuiteSession(
            backend: backend, checks: checks, configuration: configuration,
            callSite: CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        ).run()
    }

    /// The same, from async code.
    public static func run(
        _ backend: any TaskBackend, checks: [RuleCheck] = RuleSuite.checks, configuration: ConformanceConfiguration,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) async -> RuleSuiteReport {
        let callSite = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        return await Conformance.onOwnThread {
            RuleSuiteSession(backend: backend, checks: checks, configuration: configuration, callSite: callSite).run()
        }
    }

    private static func finish(_ context: RuleContext, _ body: () throws -> Void) {
        do {
            try body()
        } catch {
            recordThrown(error, context)
        }
    }

    /// An error a check did not catch: a `require` that failed (already recorded), or a failure.
    private static func recordThrown(_ error: any Error, _ context: RuleContext, line: Int = #line) {
        guard !(error is RequirementFailed) else { return }
        context.fail(
            "the check's calls into the backend do not throw", call: "a throwing call of the check's body",
            expected: "no error", observed: "threw \(RuleContext.show(error))", line: line)
    }
}

/// Calls `body` the first time it is called, with that call's argument; later calls do nothing.
private final class Once: Sendable {
    private let body: PlainLocked<(@Sendable (Bool) -> Void)?>
    init(_ body: @escaping @Sendable (Bool) -> Void) { self.body = PlainLocked(body) }
    func callAsFunction(_ value: Bool) {
        body.withLock { body in
            defer { body = nil }; return body
        }?(value)
    }
}
