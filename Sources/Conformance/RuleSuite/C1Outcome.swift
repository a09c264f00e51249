import Synchronization
import TaskAPI

extension RuleSuite {
    /// C1 Outcome.
    enum C1Outcome {
        static func completesExactlyOnce(_ c: RuleContext) throws {
            for outcome in [Completion<Int>.success(1), .failure(TestError(code: 2)), .cancelled] {
                let source = c.backend.makeSource(of: Int.self)
                let set = "source.tryComplete(\(RuleContext.describe(outcome)))"
                c.expect(
                    source.task.completion == nil, "a new source's task has no outcome",
                    call: "backend.makeSource(of: Int.self).task.completion",
                    expected: "nil", observed: RuleContext.show(source.task.completion))
                c.expectEqual(
                    source.task.status, .pending, "a new source's task is pending", call: "backend.makeSource(of: Int.self).task.status")
                c.expectEqual(source.tryComplete(outcome), true, "the first setter of a pending source wins", call: set)
                for other in [Completion<Int>.success(9), .failure(TestError(code: 9)), .cancelled] {
                    c.expectEqual(
                        source.tryComplete(other), false, "a setter on a completed source loses",
                        call: "source.tryComplete(\(RuleContext.describe(other))) after \(set)")
                }
                c.expectCompletedAtOnce(
                    source.task.completion, outcome, "the task keeps its first outcome, whatever setters come later",
                    call: "source.task.completion after \(set) and three later setters")
                c.expectOutcome(
                    of: source.task.wait(), outcome, "wait() returns the task's one outcome", call: "source.task.wait() after \(set)")
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
                let call = "trySucceed, tryFail and tryCancel on one source from 6 threads at once (round \(round))"
                try c.require(
                    all.count == 1, "of racing setters exactly one returns true", call: call,
                    expected: "1 winner", observed: "\(all.count) winners (threads \(all))")
                let winner = all[0]
                let expected: Completion<Int> =
                    switch winner % 3 {
                    case 0: .success(winner)
                    case 1: .failure(TestError(code: winner))
                    default: .cancelled
                    }
                c.expectCompletedAtOnce(
                    source.task.completion, expected, "the task's outcome is the winning setter's",
                    call: call + ", won by thread \(winner)")
            }
        }

        static func settersOnCompletedSourceThrow(_ c: RuleContext) throws {
            let source = c.backend.makeSource(of: Int.self)
            c.expectNoThrow("the first throwing setter of a pending source succeeds", call: "try source.succeed(1)") {
                try source.succeed(1)
            }
            let throwing: [(String, () throws -> Void)] = [
                ("try source.succeed(2)", { try source.succeed(2) }),
                ("try source.fail(TestError(code: 3))", { try source.fail(TestError(code: 3)) }),
                ("try source.cancel()", { try source.cancel() }),
                ("try source.complete(.success(4))", { try source.complete(.success(4)) })
            ]
            for (call, setter) in throwing {
                c.expectThrows(
                    TaskError.alreadyCompleted, "a throwing setter on a completed source throws alreadyCompleted",
                    call: call + " after succeed(1)", setter)
            }
            c.expectCompletedAtOnce(
                source.task.completion, .success(1), "the losing setters change nothing",
                call: "source.task.completion after succeed(1) and four losing setters")
            c.expect(
                "\(TaskError.alreadyCompleted)".contains("C1.3"), "TaskError.alreadyCompleted names its rule",
                call: "\"\\(TaskError.alreadyCompleted)\"", expected: "text containing C1.3", observed: "\(TaskError.alreadyCompleted)")

            let cancelled = c.backend.makeSource(of: Void.self)
            c.expectNoThrow("cancel() on a pending source succeeds", call: "try source.cancel()") { try cancelled.cancel() }
            c.expectThrows(
                TaskError.alreadyCompleted, "a throwing setter on a cancelled source throws alreadyCompleted",
                call: "try source.succeed() after cancel()"
            ) { try cancelled.succeed() }
            c.expectEqual(
                cancelled.task.completion?.isCancelled, true, "the task stays cancelled",
                call: "source.task.completion after cancel() and succeed()")
        }

        static func completedTasksDirectly(_ c: RuleContext) throws {
            let backend = c.backend
            let made: [(String, any AsyncTask<Int>, Completion<Int>)] = [
                ("backend.succeeded(5)", backend.succeeded(5), .success(5)),
                (
                    "backend.failed(TestError(code: 6), as: Int.self)", backend.failed(TestError(code: 6), as: Int.self),
                    .failure(TestError(code: 6))
                ),
                ("backend.cancelled(as: Int.self)", backend.cancelled(as: Int.self), .cancelled),
                ("backend.completed(.success(7))", backend.completed(Completion<Int>.success(7)), .success(7))
            ]
            for (call, task, outcome) in made {
                c.expectEqual(task.status, .completed, "a task made completed is completed at once", call: call + ".status")
                c.expectCompletedAtOnce(
                    task.completion, outcome, "a task made completed has its outcome at once", call: call + ".completion")
            }
            let next: any AsyncTask<Int> = made[3].1.map { $0 + 1 }
            c.expectOutcome(
                next, .success(8), "a continuation on a task made completed runs", call: "backend.completed(.success(7)).map { $0 + 1 }")
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
            let run = "backend.run { started.trySucceed(); gate.task.wait(); return 1 }"
            c.expectCompletes(started.task, "the body of run starts", call: run)
            c.expectEqual(task.status, .running, "a task whose body runs is running", call: run + ".status, inside the body")
            let samples = Recorder<TaskStatus>()
            let sampler = backend.run(on: backend.makeSerialExecutor(label: "sampler"), token: .none) { _ in
                while true {
                    let status = task.status
                    samples.append(status)
                    if status == .completed { break }
                }
            }
            gate.trySucceed()
            c.expectCompletes(sampler, "status reaches completed once the body returned", call: run + ".status, sampled in a loop")
            c.expectEqual(task.status, .completed, "a task whose body returned is completed", call: run + ".status")
            let seen = samples.all
            var changes = seen.isEmpty ? [] : [seen[0]]
            for status in seen where status != changes.last { changes.append(status) }
            c.expect(
                seen == seen.sorted(), "status only moves forward", call: run + ".status, sampled while the body finishes",
                expected: "running, then completed", observed: changes.map(\.description).joined(separator: ", "))
            c.expectEqual(seen.last, .completed, "the sampled status ends completed", call: run + ".status")

            let source = backend.makeSource(of: Int.self)
            c.expectEqual(
                source.task.status, .pending, "a new source's task is pending", call: "backend.makeSource(of: Int.self).task.status")
            source.trySucceed(1)
            c.expectEqual(
                source.task.status, .completed, "a completed source's task is completed", call: "source.task.status after trySucceed(1)")
            c.expectEqual(source.tryStart(), false, "a completed task cannot start", call: "source.tryStart() after trySucceed(1)")
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
                c.expectEqual(
                    source.trySucceed(Big()), true, "the first setter wins", call: "backend.makeSource(of: Big.self).trySucceed(Big())")
                c.expectEqual(source.trySucceed(Big(a: 9)), false, "a second setter loses", call: "source.trySucceed(Big(a: 9))")
                c.expectOutcome(
                    source.task, .success(Big()), "a 120-byte value keeps its value", call: "source.task after trySucceed(Big())")
                c.expectOutcome(count, .success(100), "a continuation sees the whole value", call: "source.task.map { $0.s.count }")
                c.expectEqual(
                    c.settle(kept, call: "source.task.map { big in (probe, big) }")?.value?.1, Big(),
                    "a continuation's result of another size keeps its value",
                    call: "source.task.map { big in (probe, big) }")
                c.expectOutcome(
                    passed, .success(Big()), "the value passes through map and recover",
                    call: "source.task.map { $0 }.recover { _ in Big() }")
                c.expectCompletedAtOnce(
                    c.backend.completed(.success(Big(a: 7))).completion, .success(Big(a: 7)),
                    "a task made completed keeps a large value", call: "backend.completed(.success(Big(a: 7))).completion")
                let text = c.backend.makeSource(of: String.self)
                let upper = text.task.map { $0.uppercased() }
                text.trySucceed("abc")
                c.expectOutcome(
                    upper, .success("ABC"), "a String value keeps its value",
                    call: "text.task.map { $0.uppercased() } after trySucceed(\"abc\")")
                let failed = c.backend.makeSource(of: Big.self)
                let failedMap = failed.task.map { $0.a }
                failed.tryFail(TestError(code: 3))
                c.expectOutcome(
                    failedMap, .failure(TestError(code: 3)), "a failure passes through map",
                    call: "failed.task.map { $0.a } after tryFail(TestError(code: 3))")
            }
            c.expect(
                eventually { weakProbe == nil }, "a stored value is released with its task",
                call: "source.task.map { big in (probe, big) }, every task dropped", expected: "the probe freed",
                observed: "the probe still alive")
        }
    }

}
