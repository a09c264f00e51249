import Synchronization
import TaskAPI

extension RuleSuite {
    /// C1 Outcome.
    enum C1Outcome {
        static let checks: [RuleCheck] = [
            RuleCheck("C1.1", "a task is pending until completed once, and never changes after", completesExactlyOnce),
            RuleCheck("C1.2", "of racing try-setters exactly one wins, and its outcome is the task's", racingSettersHaveOneWinner),
            RuleCheck("C1.3", "non-try setters on a completed source throw and change nothing", settersOnCompletedSourceThrow),
            RuleCheck("C1.4", "already-completed tasks can be made directly", completedTasksDirectly),
            RuleCheck("C1.5", "status is pending, running, completed, and only moves forward", statusMovesForward),
            RuleCheck("C1.1", "values of every size and alignment keep their value, and go with their task", valuesOfEverySize),
        ]

        static func completesExactlyOnce(_ c: RuleContext) throws {
            for outcome in [Completion<Int>.success(1), .failure(TestError(code: 2)), .cancelled] {
                let source = c.backend.makeSource(of: Int.self)
                c.expect(source.task.completion == nil)
                c.expectEqual(source.task.status, .pending)
                c.expect(source.tryComplete(outcome))
                for other in [Completion<Int>.success(9), .failure(TestError(code: 9)), .cancelled] {
                    c.expect(!source.tryComplete(other))
                }
                let seen = try c.require(source.task.completion)
                c.expectEqual(seen.kind, outcome.kind)
                c.expectEqual(seen.value, outcome.value)
                c.expectEqual(seen.testError, outcome.testError)
                c.expectEqual(source.task.wait().kind, outcome.kind)
            }
        }

        static func racingSettersHaveOneWinner(_ c: RuleContext) throws {
            for round in 0..<100 {
                let source = c.backend.makeSource(of: Int.self)
                let winners = Recorder<Int>()
                race(6) { index in
                    let won: Bool
                    switch index % 3 {
                    case 0: won = source.trySucceed(index)
                    case 1: won = source.tryFail(TestError(code: index))
                    default: won = source.tryCancel()
                    }
                    if won { winners.append(index) }
                }
                let all = winners.all
                try c.require(all.count == 1, "round \(round): \(all.count) winners")
                let winner = all[0]
                let completion = try c.require(source.task.completion)
                switch winner % 3 {
                case 0: c.expect(completion.value == winner)
                case 1: c.expect(completion.testError == TestError(code: winner))
                default: c.expect(completion.isCancelled)
                }
            }
        }

        static func settersOnCompletedSourceThrow(_ c: RuleContext) throws {
            let source = c.backend.makeSource(of: Int.self)
            try source.succeed(1)
            c.expectThrows(TaskError.alreadyCompleted) { try source.succeed(2) }
            c.expectThrows(TaskError.alreadyCompleted) { try source.fail(TestError(code: 3)) }
            c.expectThrows(TaskError.alreadyCompleted) { try source.cancel() }
            c.expectThrows(TaskError.alreadyCompleted) { try source.complete(.success(4)) }
            c.expectEqual(source.task.completion?.value, 1)
            c.expect("\(TaskError.alreadyCompleted)".contains("C1.3"))

            let cancelled = c.backend.makeSource(of: Void.self)
            try cancelled.cancel()
            c.expectThrows(TaskError.alreadyCompleted) { try cancelled.succeed() }
            c.expectEqual(cancelled.task.completion?.isCancelled, true)
        }

        static func completedTasksDirectly(_ c: RuleContext) throws {
            let backend = c.backend
            let succeeded = backend.succeeded(5)
            let failed = backend.failed(TestError(code: 6), as: Int.self)
            let cancelled = backend.cancelled(as: Int.self)
            let made = backend.completed(Completion<Int>.success(7))
            for task in [succeeded, failed, cancelled, made] {
                c.expectEqual(task.status, .completed)
                c.expect(task.completion != nil)
            }
            c.expectEqual(succeeded.completion?.value, 5)
            c.expectEqual(failed.completion?.testError, TestError(code: 6))
            c.expectEqual(cancelled.completion?.isCancelled, true)
            let next: any AsyncTask<Int> = made.map { $0 + 1 }
            let value = try next.settle()?.get()
            c.expectEqual(value, 8)
        }

        static func statusMovesForward(_ c: RuleContext) throws {
            let backend = c.backend
            let gate = backend.makeSource(of: Void.self)
            let started = backend.makeSource(of: Void.self)
            let task = backend.run { _ in
                started.trySucceed()
                _ = gate.task.wait()
                return 1
            }
            c.expect(started.task.settle() != nil)
            c.expectEqual(task.status, .running)
            let samples = Recorder<TaskStatus>()
            let sampler = backend.run(on: backend.makeSerialExecutor(label: "sampler"), token: .none) { _ in
                while true {
                    let status = task.status
                    samples.append(status)
                    if status == .completed { break }
                }
            }
            gate.trySucceed()
            c.expect(sampler.settle() != nil)
            c.expectEqual(task.status, .completed)
            let seen = samples.all
            c.expect(seen == seen.sorted(), "status went backwards: \(seen.map(\.description))")
            c.expectEqual(seen.last, .completed)

            let source = backend.makeSource(of: Int.self)
            c.expectEqual(source.task.status, .pending)
            source.trySucceed(1)
            c.expectEqual(source.task.status, .completed)
            c.expect(!source.tryStart(), "a completed task cannot start")
        }

        static func valuesOfEverySize(_ c: RuleContext) throws {
            struct Big: Sendable, Equatable {
                var a = 1, b = 2, c = 3, d = 4, e = 5
                var s = String(repeating: "x", count: 100)
            }
            final class Probe: Sendable {}
            weak var weakProbe: Probe?
            do {
                let probe = Probe()
                weakProbe = probe
                let source = c.backend.makeSource(of: Big.self)
                let count = source.task.map { $0.s.count }
                let kept = source.task.map { big in (probe, big) }
                let passed = source.task.map { $0 }.recover { _ in Big() }
                c.expect(source.trySucceed(Big()))
                c.expect(!source.trySucceed(Big(a: 9)))
                c.expect(try source.task.get() == Big())
                c.expect(try count.get() == 100)
                c.expect(try kept.get().1 == Big())
                c.expect(try passed.get() == Big())
                c.expectEqual(c.backend.completed(.success(Big(a: 7))).completion?.value, Big(a: 7))
                let text = c.backend.makeSource(of: String.self)
                let upper = text.task.map { $0.uppercased() }
                text.trySucceed("abc")
                c.expect(try upper.get() == "ABC")
                let failed = c.backend.makeSource(of: Big.self)
                let failedMap = failed.task.map { $0.a }
                failed.tryFail(TestError(code: 3))
                c.expectEqual(failedMap.wait().testError, TestError(code: 3))
            }
            c.expect(weakProbe == nil, "a stored value is released with its task")
        }
    }


}