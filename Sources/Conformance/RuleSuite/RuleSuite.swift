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
/// backend's own API can set up: C6.4's limit on blocked threads, C9.8's main thread.
public enum RuleSuite {
    /// Every check, in the contract's order.
    public static let checks: [RuleCheck] =
        C1Outcome.checks + C2Continuations.checks + C3Errors.checks + C4Cancellation.checks
        + C5Combinators.checks + C6Waiting.checks + C7Executors.checks + C8Resources.checks
        + C9CallForm.checks + C9Factory.checks + C9PreparedTask.checks + C9Retry.checks + C9Run.checks
        + C9Executor.checks + C9ActorExecutor.checks

    /// The rule ids the checks cover, in the contract's order.
    public static var rules: [String] {
        var seen = Set<String>()
        return checks.map(\.rule).filter { seen.insert($0).inserted }
    }

    /// The checks of chapter `chapter` (C`chapter`.x).
    public static func checks(chapter: Int) -> [RuleCheck] {
        checks.filter { $0.chapter == chapter }
    }

    /// Runs `check` against `backend` and returns its failures (empty: the rule held). A
    /// synchronous check runs on a thread of its own, so that its blocking waits never hold a
    /// thread of Swift's cooperative pool.
    public static func run(
        _ check: RuleCheck, on backend: any TaskBackend,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) async -> [RuleFailure] {
        let context = RuleContext(
            backend: backend, check: check, callSite: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
        switch check.body {
        case .sync(let body):
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let thread = Thread {
                    finish(context) { try body(context) }
                    continuation.resume()
                }
                thread.stackSize = 4 << 20
                thread.start()
            }
        case .async(let body):
            do {
                try await body(context)
            } catch {
                recordThrown(error, context)
            }
        }
        return context.failures
    }

    /// Runs `check` from synchronous code, on the calling thread (an asynchronous check runs as a
    /// Swift task the calling thread waits for).
    public static func run(
        _ check: RuleCheck, on backend: any TaskBackend,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> [RuleFailure] {
        let context = RuleContext(
            backend: backend, check: check, callSite: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
        switch check.body {
        case .sync(let body):
            finish(context) { try body(context) }
        case .async(let body):
            let done = DispatchSemaphore(value: 0)
            Task.detached {
                do {
                    try await body(context)
                } catch {
                    recordThrown(error, context)
                }
                done.signal()
            }
            done.wait()
        }
        return context.failures
    }

    /// Runs `checks` (all by default) against `backend`, one after the other.
    public static func run(
        _ backend: any TaskBackend, checks: [RuleCheck] = RuleSuite.checks,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> RuleSuiteReport {
        let start = ContinuousClock.now
        let failures = checks.flatMap { run($0, on: backend, fileID: fileID, filePath: filePath, line: line, column: column) }
        return RuleSuiteReport(backend: backend.name, checks: checks, failures: failures, duration: ContinuousClock.now - start)
    }

    /// The same, from async code.
    public static func run(
        _ backend: any TaskBackend, checks: [RuleCheck] = RuleSuite.checks,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) async -> RuleSuiteReport {
        let start = ContinuousClock.now
        var failures: [RuleFailure] = []
        for check in checks {
            failures += await run(check, on: backend, fileID: fileID, filePath: filePath, line: line, column: column)
        }
        return RuleSuiteReport(backend: backend.name, checks: checks, failures: failures, duration: ContinuousClock.now - start)
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
        context.fail("the check threw \(error)", line: line)
    }
}

/// What `RuleSuite.run` found for one backend.
public struct RuleSuiteReport: Sendable, CustomStringConvertible {
    public let backend: String
    /// The checks that ran.
    public let checks: [RuleCheck]
    public let failures: [RuleFailure]
    public let duration: Duration

    public var passed: Bool { failures.isEmpty }

    /// The rule ids whose checks ran, in the contract's order.
    public var rules: [String] {
        var seen = Set<String>()
        return checks.map(\.rule).filter { seen.insert($0).inserted }
    }

    public var description: String {
        let broken = Set(failures.map(\.rule))
        return (["rule suite [\(backend)]: \(checks.count) checks of \(rules.count) rules in \(duration), "
            + (passed ? "passed" : "\(failures.count) failures (\(rules.filter(broken.contains).joined(separator: " ")))")]
            + failures.map(\.description)).joined(separator: "\n")
    }
}
