import Synchronization
import Testing
import TaskAPI

@Suite("C1 Outcome")
struct C1OutcomeTests {
    @Test("C1.1 a task is pending until completed once, and never changes after", arguments: Backends.all)
    func completesExactlyOnce(_ c: BackendCase) throws {
        for outcome in [Completion<Int>.success(1), .failure(TestError(code: 2)), .cancelled] {
            let source = c.backend.makeSource(of: Int.self)
            #expect(source.task.completion == nil)
            #expect(source.task.status == .pending)
            #expect(source.tryComplete(outcome))
            for other in [Completion<Int>.success(9), .failure(TestError(code: 9)), .cancelled] {
                #expect(!source.tryComplete(other))
            }
            let seen = try #require(source.task.completion)
            #expect(seen.kind == outcome.kind)
            #expect(seen.value == outcome.value)
            #expect(seen.testError == outcome.testError)
            #expect(source.task.wait().kind == outcome.kind)
        }
    }

    @Test("C1.2 of racing try-setters exactly one wins, and its outcome is the task's", arguments: Backends.all)
    func racingSettersHaveOneWinner(_ c: BackendCase) throws {
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
            try #require(all.count == 1, "round \(round): \(all.count) winners")
            let winner = all[0]
            let completion = try #require(source.task.completion)
            switch winner % 3 {
            case 0: #expect(completion.value == winner)
            case 1: #expect(completion.testError == TestError(code: winner))
            default: #expect(completion.isCancelled)
            }
        }
    }

    @Test("C1.3 non-try setters on a completed source throw and change nothing", arguments: Backends.all)
    func settersOnCompletedSourceThrow(_ c: BackendCase) throws {
        let source = c.backend.makeSource(of: Int.self)
        try source.succeed(1)
        #expect(throws: TaskError.alreadyCompleted) { try source.succeed(2) }
        #expect(throws: TaskError.alreadyCompleted) { try source.fail(TestError(code: 3)) }
        #expect(throws: TaskError.alreadyCompleted) { try source.cancel() }
        #expect(throws: TaskError.alreadyCompleted) { try source.complete(.success(4)) }
        #expect(source.task.completion?.value == 1)
        #expect("\(TaskError.alreadyCompleted)".contains("C1.3"))

        let cancelled = c.backend.makeSource(of: Void.self)
        try cancelled.cancel()
        #expect(throws: TaskError.alreadyCompleted) { try cancelled.succeed() }
        #expect(cancelled.task.completion?.isCancelled == true)
    }

    @Test("C1.4 already-completed tasks can be made directly", arguments: Backends.all)
    func completedTasksDirectly(_ c: BackendCase) throws {
        let backend = c.backend
        let succeeded = backend.succeeded(5)
        let failed = backend.failed(TestError(code: 6), as: Int.self)
        let cancelled = backend.cancelled(as: Int.self)
        let made = backend.completed(Completion<Int>.success(7))
        for task in [succeeded, failed, cancelled, made] {
            #expect(task.status == .completed)
            #expect(task.completion != nil)
        }
        #expect(succeeded.completion?.value == 5)
        #expect(failed.completion?.testError == TestError(code: 6))
        #expect(cancelled.completion?.isCancelled == true)
        let next: any AsyncTask<Int> = made.map { $0 + 1 }
        let value = try next.settle()?.get()
        #expect(value == 8)
    }

    @Test("C1.5 status is pending, running, completed, and only moves forward", arguments: Backends.all)
    func statusMovesForward(_ c: BackendCase) throws {
        let backend = c.backend
        let gate = backend.makeSource(of: Void.self)
        let started = backend.makeSource(of: Void.self)
        let task = backend.run { _ in
            started.trySucceed()
            _ = gate.task.wait()
            return 1
        }
        #expect(started.task.settle() != nil)
        #expect(task.status == .running)
        let samples = Recorder<TaskStatus>()
        let sampler = backend.run(on: backend.makeSerialExecutor(label: "sampler"), token: .none) { _ in
            while true {
                let status = task.status
                samples.append(status)
                if status == .completed { break }
            }
        }
        gate.trySucceed()
        #expect(sampler.settle() != nil)
        #expect(task.status == .completed)
        let seen = samples.all
        #expect(seen == seen.sorted(), "status went backwards: \(seen.map(\.description))")
        #expect(seen.last == .completed)

        let source = backend.makeSource(of: Int.self)
        #expect(source.task.status == .pending)
        source.trySucceed(1)
        #expect(source.task.status == .completed)
        #expect(!source.tryStart(), "a completed task cannot start")
    }

    @Test("C1.1 values of every size and alignment keep their value, and go with their task", arguments: Backends.all)
    func valuesOfEverySize(_ c: BackendCase) throws {
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
            #expect(source.trySucceed(Big()))
            #expect(!source.trySucceed(Big(a: 9)))
            #expect(try source.task.get() == Big())
            #expect(try count.get() == 100)
            #expect(try kept.get().1 == Big())
            #expect(try passed.get() == Big())
            #expect(c.backend.completed(.success(Big(a: 7))).completion?.value == Big(a: 7))
            let text = c.backend.makeSource(of: String.self)
            let upper = text.task.map { $0.uppercased() }
            text.trySucceed("abc")
            #expect(try upper.get() == "ABC")
            let failed = c.backend.makeSource(of: Big.self)
            let failedMap = failed.task.map { $0.a }
            failed.tryFail(TestError(code: 3))
            #expect(failedMap.wait().testError == TestError(code: 3))
        }
        #expect(weakProbe == nil, "a stored value is released with its task")
    }
}

