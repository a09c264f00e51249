import Foundation
import TaskAPI

extension RuleSuite {
    /// C6 Waiting.
    enum C6Waiting {
        static func waitAndGet(_ c: RuleContext) throws {
            let backend = c.backend
            let source = backend.makeSource(of: Int.self)
            let setter = Thread { source.trySucceed(5) }
            setter.start()
            c.expectOutcome(
                of: source.task.wait(), .success(5), "wait() returns the outcome once the task completes",
                call: "source.task.wait(), trySucceed(5) on another thread")
            c.expectEqual(try? source.task.get(), 5, "get() returns the value", call: "try source.task.get()")
            c.expectThrows(TestError(code: 1), "get() rethrows a failure's error", call: "try backend.failed(TestError(code: 1)).get()") {
                try backend.failed(TestError(code: 1), as: Int.self).get()
            }
            c.expectThrows(
                CancellationError.self, "get() throws CancellationError for a cancelled task", call: "try backend.cancelled().get()"
            ) {
                try backend.cancelled(as: Int.self).get()
            }
        }

        static func waitTimeout(_ c: RuleContext) throws {
            let backend = c.backend
            let source = backend.makeSource(of: Int.self)
            let start = Uptime.now
            let outcome = source.task.wait(timeout: .milliseconds(30))
            let elapsed = Uptime.now - start
            c.expect(
                outcome == nil, "wait(timeout:) on a pending task returns nil", call: "pending.wait(timeout: .milliseconds(30))",
                expected: "nil", observed: RuleContext.show(outcome))
            c.expect(
                elapsed >= .milliseconds(30), "wait(timeout:) returns nil only once the timeout passed",
                call: "pending.wait(timeout: .milliseconds(30))", expected: "after 30 ms or more", observed: "after \(elapsed)")
            source.trySucceed(1)
            c.expectOutcome(
                of: source.task.wait(timeout: .milliseconds(30)), .success(1), "wait(timeout:) returns a completed task's outcome",
                call: "source.task.wait(timeout: .milliseconds(30)) after trySucceed(1)")
            c.expectOutcome(
                of: source.task.wait(timeout: .zero), .success(1), "wait(timeout: .zero) returns a completed task's outcome",
                call: "source.task.wait(timeout: .zero) after trySucceed(1)")
        }

        static func allWaitersWake(_ c: RuleContext) throws {
            let backend = c.backend
            for _ in 0..<20 {
                let source = backend.makeSource(of: Int.self)
                let woken = Counter()
                race(9) { index in
                    if index == 0 {
                        source.trySucceed(1)
                    } else if source.task.wait(timeout: patience)?.value == 1 {
                        woken.increment()
                    }
                }
                c.expectEqual(
                    woken.count, 8, "every thread waiting on a task wakes with its outcome",
                    call: "source.task.wait(timeout: 10 s) on 8 threads, source.trySucceed(1) on a ninth")
            }
        }

        static func nestedWaits(_ c: RuleContext) throws {
            let backend = c.backend
            @Sendable func nest(_ depth: Int) -> any AsyncTask<Int> {
                backend.run { _ in
                    depth == 0 ? 0 : try nest(depth - 1).get() + 1
                }
            }
            for round in 0..<3 {
                let start = Uptime.now
                let outcome = nest(16).wait(timeout: patience)
                let elapsed = Uptime.now - start
                let call = "backend.run { try nest(depth - 1).get() + 1 } nested 16 deep on the default executor (round \(round))"
                c.expectOutcome(of: outcome, .success(16), "bodies blocked in wait() nested 16 deep finish", call: call)
                c.expect(
                    elapsed < c.contractBound(.seconds(1)), "bodies blocked in wait() nested 16 deep finish within 1 s", call: call,
                    expected: "within \(c.contractBound(.seconds(1)))", observed: "took \(elapsed)")
            }
            // Also when every level waits on a continuation, not on a body it could run itself.
            @Sendable func chained(_ depth: Int) -> any AsyncTask<Int> {
                backend.run { _ in
                    depth == 0 ? 0 : try chained(depth - 1).map { $0 + 1 }.get()
                }
            }
            let start = Uptime.now
            let call = "backend.run { try chained(depth - 1).map { $0 + 1 }.get() } nested 16 deep on the default executor"
            c.expectOutcome(
                of: chained(16).wait(timeout: patience), .success(16), "bodies blocked on continuations nested 16 deep finish", call: call)
            let elapsed = Uptime.now - start
            c.expect(
                elapsed < c.contractBound(.seconds(1)), "bodies blocked on continuations nested 16 deep finish within 1 s", call: call,
                expected: "within \(c.contractBound(.seconds(1)))", observed: "took \(elapsed)")
        }

        static func awaitDoesNotBlock(_ c: RuleContext) async throws {
            let backend = c.backend
            let count = 64
            let sources = (0..<count).map { _ in backend.makeSource(of: Int.self) }
            // 64 awaiting Swift tasks and the one that completes their sources share one thread (the
            // tests' own task executor, away from the cooperative pool that synchronous tests block):
            // if awaiting blocked a thread, the completing task could never run.
            let total = try await withThrowingTaskGroup(of: Int.self) { group in
                for source in sources {
                    let task = source.task
                    group.addTask(executorPreference: AwaitExecutor.shared) { try await task.value }
                }
                group.addTask(executorPreference: AwaitExecutor.shared) {
                    await Task.yield()
                    for (index, source) in sources.enumerated() { source.trySucceed(index) }
                    return 0
                }
                return try await group.reduce(0, +)
            }
            c.expectEqual(
                total, (0..<count).reduce(0, +), "64 Swift tasks awaiting tasks on one thread all get their values",
                call: "try await source.task.value in 64 Swift tasks sharing one thread with the one completing them")
            let value = try? await backend.succeeded(7).value
            c.expectEqual(value, 7, "await returns a completed task's value", call: "try await backend.succeeded(7).value")
            await c.expectThrowsAsync(
                TestError(code: 2), "await rethrows a failure's error", call: "try await backend.failed(TestError(code: 2)).value"
            ) {
                _ = try await backend.failed(TestError(code: 2), as: Int.self).value
            }
        }
    }

}
