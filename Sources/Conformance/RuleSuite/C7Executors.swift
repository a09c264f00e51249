import Foundation
import Synchronization
import TaskAPI

extension RuleSuite {
    /// C7 Executors.
    enum C7Executors {
        static func userExecutor(_ c: RuleContext) throws {
            let backend = c.backend
            let user = UserExecutor()
            let run = backend.run(on: user, token: .none) { _ in user.isCurrent }
            let continued = run.continueWith(on: user, token: .none) { _ in user.isCurrent }
            let mapped = continued.map(on: user) { $0 && user.isCurrent }
            let recovered = backend.failed(TestError(code: 1), as: Bool.self).recover(on: user) { _ in user.isCurrent }
            let finals = backend.succeeded(true).finally(on: user) { _ in
                if !user.isCurrent { throw TestError(code: 2) }
            }
            let calls = [
                "backend.run(on: user) { user.isCurrent }", "run.continueWith(on: user) { user.isCurrent }",
                "continued.map(on: user) { $0 && user.isCurrent }", "backend.failed(...).recover(on: user) { user.isCurrent }",
                "backend.succeeded(true).finally(on: user) { throws unless user.isCurrent }"
            ]
            for (task, call) in zip([run, continued, mapped, recovered, finals], calls) {
                c.expectOutcome(task, .success(true), "a body runs on the user-written executor it was given", call: call)
            }
            c.expectEqual(user.ran.count, 5, "the user's executor ran one job per body", call: calls.joined(separator: "; "))
        }

        static func executorKinds(_ c: RuleContext) throws {
            let backend = c.backend
            // Parallel: two default-executor jobs that each wait for the other can both finish.
            let a = backend.makeSource(of: Void.self)
            let b = backend.makeSource(of: Void.self)
            let first = backend.run { _ in
                a.trySucceed(); return b.task.wait(timeout: patience) != nil
            }
            let second = backend.run { _ in
                b.trySucceed(); return a.task.wait(timeout: patience) != nil
            }
            c.expectOutcome(
                backend.whenAll([first, second]), .success([true, true]), "the default executor runs jobs in parallel",
                call: "two backend.run { } bodies, each waiting for the other's signal")

            // Serial: FIFO and never two jobs at once.
            let serial = backend.makeSerialExecutor(label: "c7.2")
            let inside = Atomic(0)
            let overlaps = Counter()
            let order = Recorder<Int>()
            let jobs = 2_000
            let done = backend.makeSource(of: Void.self)
            let submitters = PlainLocked(0)
            race(2) { thread in
                // Each thread submits its own jobs; FIFO holds per submitting thread.
                for index in 0..<(jobs / 2) {
                    serial.execute {
                        if inside.add(1, ordering: .sequentiallyConsistent).newValue != 1 { overlaps.increment() }
                        order.append(thread * jobs + index)
                        inside.subtract(1, ordering: .sequentiallyConsistent)
                        if order.all.count == jobs { done.trySucceed() }
                    }
                }
                submitters.withLock { $0 += 1 }
            }
            let call = "serial.execute { } 1000 times from each of 2 threads"
            c.expectCompletes(done.task, "a serial executor runs every job", call: call)
            c.expectEqual(overlaps.count, 0, "a serial executor runs one job at a time (jobs that overlapped another)", call: call)
            let all = order.all
            for thread in 0..<2 {
                let mine = all.filter { $0 / jobs == thread }.map { $0 % jobs }
                c.expect(
                    mine == mine.sorted(), "a serial executor runs one submitter's jobs in FIFO order",
                    call: call + " (thread \(thread)'s jobs)",
                    expected: "0, 1, 2, ... \(jobs / 2 - 1)", observed: firstDisorder(mine))
            }

            // Inline: the job has run when execute returns.
            let ran = Counter()
            backend.inlineExecutor.execute { ran.increment() }
            c.expectEqual(ran.count, 1, "the inline executor runs a job before execute returns", call: "backend.inlineExecutor.execute { }")
        }

        static func exactlyOnce(_ c: RuleContext) throws {
            let backend = c.backend
            let executors = [backend.defaultExecutor, backend.makeSerialExecutor(label: "c7.3"), backend.inlineExecutor]
            for executor in executors {
                let count = 5_000
                let runs = (0..<count).map { _ in Counter() }
                let total = Counter()
                let done = backend.makeSource(of: Void.self)
                for index in 0..<count {
                    executor.execute {
                        runs[index].increment()
                        if total.increment() == count { done.trySucceed() }
                    }
                }
                let call = "\(executorName(executor, in: backend)).execute { } 5000 times"
                c.expectCompletes(done.task, "the executor runs every job", call: call)
                let counts = runs.map(\.count)
                c.expect(
                    counts.allSatisfy { $0 == 1 }, "an executor runs each job exactly once", call: call,
                    expected: "each of \(count) ran once", observed: runCounts(counts))
            }
        }
    }

}
