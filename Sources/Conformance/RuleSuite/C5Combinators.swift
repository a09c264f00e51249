import TaskAPI

extension RuleSuite {
    /// C5 Combinators.
    enum C5Combinators {
        static func whenAll(_ c: RuleContext) throws {
            let backend = c.backend
            let sources = (0..<20).map { _ in backend.makeSource(of: Int.self) }
            let all = backend.whenAll(sources.map { $0.task })
            for (index, source) in sources.enumerated().reversed() { source.trySucceed(index * 10) }
            c.expectOutcome(
                all, .success((0..<20).map { $0 * 10 }), "whenAll's values are in input order, whatever the completion order",
                call: "backend.whenAll(20 pending tasks), completed last to first with 10 × index")

            for failure in [Completion<Int>.failure(TestError(code: 1)), .cancelled] {
                let pending = backend.makeSource(of: Int.self)
                let failing = backend.makeSource(of: Int.self)
                let joined = backend.whenAll([backend.succeeded(1), pending.task, failing.task])
                failing.tryComplete(failure)
                let call = "backend.whenAll([succeeded(1), pending, failing]), failing completed \(RuleContext.describe(failure))"
                let expected: Completion<[Int]> = failure.error.map { .failure($0) } ?? .cancelled
                c.expectOutcome(joined, expected, "whenAll fails fast with the first failure, not waiting for a pending input", call: call)
                c.expectEqual(pending.task.status, .pending, "whenAll leaves its inputs alone", call: call + "; pending.task.status")
            }

            c.expectCompletedAtOnce(
                backend.whenAll([any AsyncTask<Int>]()).completion, .success([]), "whenAll of no input succeeds at once with []",
                call: "backend.whenAll([]).completion")
            c.expectOutcome(
                backend.whenAll(voids: [backend.succeeded(1).asVoid(), backend.succeeded("a").asVoid()]), .success(()),
                "whenAll(voids:) succeeds once every input did",
                call: "backend.whenAll(voids: [succeeded(1).asVoid(), succeeded(\"a\").asVoid()])")
        }

        static func whenAllSettled(_ c: RuleContext) throws {
            let backend = c.backend
            let late = backend.makeSource(of: Int.self)
            let settled = backend.whenAllSettled([
                backend.failed(TestError(code: 1)), late.task, backend.cancelled(), backend.succeeded(4)
            ])
            let call = "backend.whenAllSettled([failed(TestError(code: 1)), late, cancelled(), succeeded(4)])"
            c.expectPending(settled, "whenAllSettled waits for every input", call: call + ", late pending")
            late.trySucceed(2)
            let outcomes = try c.requireValue(settled, "whenAllSettled completes once every input did", call: call + ", late succeeded 2")
            let expected: [Completion<Int>] = [.failure(TestError(code: 1)), .success(2), .cancelled, .success(4)]
            c.expectEqual(
                outcomes.map(RuleContext.describe), expected.map(RuleContext.describe),
                "whenAllSettled gives every outcome in input order", call: call + ", late succeeded 2")
            c.expectCompletedAtOnce(
                backend.whenAllSettled([any AsyncTask<Int>]()).completion.map { $0.mapped(\.count) }, .success(0),
                "whenAllSettled of no input succeeds at once with []", call: "backend.whenAllSettled([]).completion")
        }

        static func raceAndAny(_ c: RuleContext) throws {
            let backend = c.backend
            let slow = backend.makeSource(of: Int.self)
            let fast = backend.makeSource(of: Int.self)
            let raced = backend.race([slow.task, fast.task])
            fast.tryFail(TestError(code: 1))
            let call = "backend.race([slow, fast]), fast failed TestError(code: 1)"
            c.expectOutcome(raced, .failure(TestError(code: 1)), "race takes the first outcome, a failure too", call: call)
            slow.trySucceed(2)
            c.expectCompletedAtOnce(
                raced.completion, .failure(TestError(code: 1)), "a later input changes nothing", call: call + ", then slow succeeded 2")

            let a = backend.makeSource(of: Int.self)
            let b = backend.makeSource(of: Int.self)
            let firstSuccess = backend.any([a.task, b.task])
            a.tryFail(TestError(code: 3))
            c.expectPending(firstSuccess, "a failure is not enough for any: it waits for a success", call: "backend.any([a, b]), a failed")
            b.trySucceed(4)
            c.expectOutcome(
                firstSuccess, .success(4), "any takes the first success", call: "backend.any([a, b]), a failed, then b succeeded 4")

            let none = backend.any([
                backend.failed(TestError(code: 5), as: Int.self), backend.cancelled(), backend.failed(TestError(code: 6))
            ])
            let anyCall = "backend.any([failed(TestError(code: 5)), cancelled(), failed(TestError(code: 6))])"
            let outcome = c.expectCompletes(none, "any completes once every input failed", call: anyCall)
            let errors = (outcome?.error as? AggregateError)?.errors.map { RuleContext.show($0) }
            c.expectEqual(
                errors, ["TestError(code: 5)", "CancellationError()", "TestError(code: 6)"],
                "any fails with an AggregateError of every input's error, in input order", call: anyCall)

            c.expectCompletedAtOnce(
                backend.race([any AsyncTask<Int>]()).completion, .failure(TaskError.emptyInput("race")),
                "race of no input fails at once with emptyInput", call: "backend.race([]).completion")
            c.expectCompletedAtOnce(
                backend.any([any AsyncTask<Int>]()).completion, .failure(TaskError.emptyInput("any")),
                "any of no input fails at once with emptyInput", call: "backend.any([]).completion")
        }

        static func delayAndTimeout(_ c: RuleContext) throws {
            let backend = c.backend
            let start = Uptime.now
            c.expectOutcome(backend.delay(.milliseconds(40)), .success(()), "delay succeeds", call: "backend.delay(.milliseconds(40))")
            let elapsed = Uptime.now - start
            c.expect(
                elapsed >= .milliseconds(40), "delay succeeds no earlier than asked", call: "backend.delay(.milliseconds(40))",
                expected: "after 40 ms or more", observed: "after \(elapsed)")

            let pending = backend.makeSource(of: Int.self)
            let timedOut = pending.task.timeout(after: .milliseconds(20))
            c.expectOutcome(
                timedOut, .failure(TaskError.timedOut(.milliseconds(20))), "timeout fails a task still pending at its deadline",
                call: "pending.timeout(after: .milliseconds(20))")
            c.expectEqual(
                pending.task.status, .pending, "the timed task is left alone",
                call: "pending.timeout(after: .milliseconds(20)); pending.status")

            c.expectOutcome(
                backend.succeeded(3).timeout(after: .seconds(30)), .success(3), "timeout passes an outcome in time on",
                call: "backend.succeeded(3).timeout(after: .seconds(30))")

            let token = backend.makeCancellationSource()
            let cancelledDelay = backend.delay(.seconds(30), token: token.token)
            token.cancel()
            c.expectOutcome(
                cancelledDelay, .cancelled, "a delay whose token is cancelled completes cancelled at once",
                call: "backend.delay(.seconds(30), token:), then the token cancelled")
        }

        static func noReferencesKept(_ c: RuleContext) throws {
            let backend = c.backend
            weak var weakInput: (any AsyncTask<Probe>)?
            weak var weakValue: Probe?
            let loser = backend.makeSource(of: Probe.self)
            let results: [any AsyncTask<Probe>] = try {
                let winner = backend.makeSource(of: Probe.self)
                let value = Probe()
                weakValue = value
                weakInput = winner.task
                let raced = backend.race([winner.task, loser.task])
                winner.trySucceed(value)
                _ = try c.requireOutcome(raced, "race completes", call: "backend.race([winner, loser]), winner succeeded")
                return [raced]
            }()
            _ = results
            c.expect(
                eventually { weakInput == nil }, "a completed race keeps no reference to its inputs",
                call: "backend.race([winner, loser]), winner succeeded, every other reference to it dropped",
                expected: "the winner's task freed", observed: "still alive, the race task and the pending loser referenced")

            let failing = backend.makeSource(of: Probe.self)
            let held: any AsyncTask<[Probe]> = {
                let first = backend.makeSource(of: Probe.self)
                let value = Probe()
                weakValue = value
                let all = backend.whenAll([first.task, failing.task, loser.task])
                first.trySucceed(value)
                failing.tryFail(TestError(code: 1))
                return all
            }()
            let call = "backend.whenAll([first, failing, loser]), first succeeded with a value, failing failed, loser pending"
            c.expectEqual(c.settle(held, call: call)?.kind, .failure, "whenAll fails fast", call: call)
            c.expect(
                eventually { weakValue == nil }, "a failed whenAll drops the values it collected", call: call,
                expected: "first's value freed", observed: "still alive, the whenAll task referenced")
            // The same with the failure and the value's report started at once on two threads.
            C5FailFastRounds.valuesDropped(c)
        }
    }

}
