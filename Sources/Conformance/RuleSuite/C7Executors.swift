import Foundation
import Synchronization
import TaskAPI

extension RuleSuite {
    /// C7 Executors.
    enum C7Executors {
        static let checks: [RuleCheck] = [
            RuleCheck("C7.1", "every backend accepts a user-written Executor", userExecutor),
            RuleCheck("C7.2", "default is parallel, serial is FIFO one at a time, inline runs before returning", executorKinds),
            RuleCheck("C7.3", "executors run each job exactly once", exactlyOnce),
        ]

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
            for task in [run, continued, mapped, recovered, finals] {
                c.expect(try task.settle()?.get() == true)
            }
            c.expectEqual(user.ran.count, 5)
        }

        static func executorKinds(_ c: RuleContext) throws {
            let backend = c.backend
            // Parallel: two default-executor jobs that each wait for the other can both finish.
            let a = backend.makeSource(of: Void.self)
            let b = backend.makeSource(of: Void.self)
            let first = backend.run { _ in a.trySucceed(); return b.task.wait(timeout: patience) != nil }
            let second = backend.run { _ in b.trySucceed(); return a.task.wait(timeout: patience) != nil }
            c.expect(try backend.whenAll([first, second]).settle()?.get() == [true, true])

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
            c.expect(done.task.settle() != nil)
            c.expectEqual(overlaps.count, 0)
            let all = order.all
            for thread in 0..<2 {
                let mine = all.filter { $0 / jobs == thread }
                c.expect(mine == mine.sorted(), "serial executor reordered jobs of one submitter")
            }

            // Inline: the job has run when execute returns.
            let ran = Counter()
            backend.inlineExecutor.execute { ran.increment() }
            c.expectEqual(ran.count, 1)
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
                c.expect(done.task.settle() != nil)
                c.expect(runs.allSatisfy { $0.count == 1 })
            }
        }
    }

}