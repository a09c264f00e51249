import Foundation
import TaskAPI

extension RuleSuite {
    /// C6 Waiting.
    enum C6Waiting {
        static let checks: [RuleCheck] = [
            RuleCheck("C6.1", "wait returns the outcome; get rethrows the failure", waitAndGet),
            RuleCheck("C6.2", "wait(timeout:) reports the timeout", waitTimeout),
            RuleCheck("C6.3", "every thread waiting on a task wakes", allWaitersWake),
            RuleCheck("C6.4", "waits nested 16 deep in bodies on the default executor finish within 1 s (5 s under the thread sanitizer)", nestedWaits),
            RuleCheck("C6.5", "await bridges to Swift concurrency without blocking a thread", async: awaitDoesNotBlock),
        ]

        static func waitAndGet(_ c: RuleContext) throws {
            let backend = c.backend
            let source = backend.makeSource(of: Int.self)
            let setter = Thread { source.trySucceed(5) }
            setter.start()
            c.expectEqual(source.task.wait().value, 5)
            c.expect(try source.task.get() == 5)
            c.expectThrows(TestError(code: 1)) { try backend.failed(TestError(code: 1), as: Int.self).get() }
            c.expectThrows(CancellationError.self) { try backend.cancelled(as: Int.self).get() }
        }

        static func waitTimeout(_ c: RuleContext) throws {
            let backend = c.backend
            let source = backend.makeSource(of: Int.self)
            let start = Uptime.now
            c.expect(source.task.wait(timeout: .milliseconds(30)) == nil)
            c.expect(Uptime.now - start >= .milliseconds(30))
            source.trySucceed(1)
            c.expectEqual(source.task.wait(timeout: .milliseconds(30))?.value, 1)
            c.expectEqual(source.task.wait(timeout: .zero)?.value, 1)
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
                c.expectEqual(woken.count, 8)
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
                c.expectEqual(outcome?.value, 16)
                c.expect(elapsed < c.contractBound(.seconds(1)), "round \(round): 16 nested waits took \(elapsed)")
            }
            // Also when every level waits on a continuation, not on a body it could run itself.
            @Sendable func chained(_ depth: Int) -> any AsyncTask<Int> {
                backend.run { _ in
                    depth == 0 ? 0 : try chained(depth - 1).map { $0 + 1 }.get()
                }
            }
            let start = Uptime.now
            c.expectEqual(chained(16).wait(timeout: patience)?.value, 16)
            c.expect(Uptime.now - start < c.contractBound(.seconds(1)))
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
            c.expectEqual(total, (0..<count).reduce(0, +))
            c.expect(try await backend.succeeded(7).value == 7)
            await c.expectThrowsAsync(TestError(code: 2)) { _ = try await backend.failed(TestError(code: 2), as: Int.self).value }
        }
    }

}