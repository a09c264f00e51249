import TaskAPI

extension RuleSuite {
    /// C5 Combinators.
    enum C5Combinators {
        static let checks: [RuleCheck] = [
            RuleCheck("C5.1", "whenAll keeps input order, fails fast, and succeeds at once on []", whenAll),
            RuleCheck("C5.2", "whenAllSettled waits for all and returns every outcome in order", whenAllSettled),
            RuleCheck("C5.3", "race takes the first outcome; any the first success or every error; empty input fails", raceAndAny),
            RuleCheck("C5.4", "delay succeeds no earlier than asked; timeout fails late tasks and leaves them alone", delayAndTimeout),
            RuleCheck("C5.5", "a completed combinator keeps no reference to its inputs or their values", noReferencesKept),
        ]

        static func whenAll(_ c: RuleContext) throws {
            let backend = c.backend
            let sources = (0..<20).map { _ in backend.makeSource(of: Int.self) }
            let all = backend.whenAll(sources.map { $0.task })
            for (index, source) in sources.enumerated().reversed() { source.trySucceed(index * 10) }
            c.expect(try all.settle()?.get() == (0..<20).map { $0 * 10 })

            for failure in [Completion<Int>.failure(TestError(code: 1)), .cancelled] {
                let pending = backend.makeSource(of: Int.self)
                let failing = backend.makeSource(of: Int.self)
                let joined = backend.whenAll([backend.succeeded(1), pending.task, failing.task])
                failing.tryComplete(failure)
                let result = try c.require(joined.settle(), "fail-fast: must not wait for the pending input")
                c.expectEqual(result.kind, failure.kind)
                c.expectEqual(result.testError, failure.testError)
                c.expectEqual(pending.task.status, .pending)
            }

            let empty = backend.whenAll([any AsyncTask<Int>]())
            c.expectEqual(empty.completion?.value, [])
            c.expect(try backend.whenAll(voids: [backend.succeeded(1).asVoid(), backend.succeeded("a").asVoid()]).settle()?.get() != nil)
        }

        static func whenAllSettled(_ c: RuleContext) throws {
            let backend = c.backend
            let late = backend.makeSource(of: Int.self)
            let settled = backend.whenAllSettled([
                backend.failed(TestError(code: 1)), late.task, backend.cancelled(), backend.succeeded(4),
            ])
            c.expect(settled.wait(timeout: .milliseconds(20)) == nil, "must wait for every input")
            late.trySucceed(2)
            let outcomes = try c.require(try settled.settle()?.get())
            c.expectEqual(outcomes.map(\.kind), [.failure, .success, .cancelled, .success])
            c.expectEqual(outcomes[0].testError, TestError(code: 1))
            c.expectEqual(outcomes[1].value, 2)
            c.expectEqual(outcomes[3].value, 4)
            c.expect(backend.whenAllSettled([any AsyncTask<Int>]()).completion?.value?.isEmpty == true)
        }

        static func raceAndAny(_ c: RuleContext) throws {
            let backend = c.backend
            let slow = backend.makeSource(of: Int.self)
            let fast = backend.makeSource(of: Int.self)
            let raced = backend.race([slow.task, fast.task])
            fast.tryFail(TestError(code: 1))
            c.expectEqual(raced.settle()?.testError, TestError(code: 1))
            slow.trySucceed(2)
            c.expectEqual(raced.completion?.testError, TestError(code: 1))

            let a = backend.makeSource(of: Int.self)
            let b = backend.makeSource(of: Int.self)
            let firstSuccess = backend.any([a.task, b.task])
            a.tryFail(TestError(code: 3))
            c.expect(firstSuccess.wait(timeout: .milliseconds(20)) == nil, "a failure is not enough for any")
            b.trySucceed(4)
            c.expect(try firstSuccess.settle()?.get() == 4)

            let none = backend.any([backend.failed(TestError(code: 5), as: Int.self), backend.cancelled(), backend.failed(TestError(code: 6))])
            let error = try c.require(none.settle()?.error as? AggregateError)
            c.expectEqual(error.errors.count, 3)
            c.expectEqual(error.errors[0] as? TestError, TestError(code: 5))
            c.expect(error.errors[1] is CancellationError)
            c.expectEqual(error.errors[2] as? TestError, TestError(code: 6))

            c.expect(backend.race([any AsyncTask<Int>]()).completion?.error as? TaskError == .emptyInput("race"))
            c.expect(backend.any([any AsyncTask<Int>]()).completion?.error as? TaskError == .emptyInput("any"))
        }

        static func delayAndTimeout(_ c: RuleContext) throws {
            let backend = c.backend
            let start = ContinuousClock.now
            let delayed = backend.delay(.milliseconds(40))
            c.expectEqual(delayed.settle()?.isSuccess, true)
            c.expect(ContinuousClock.now - start >= .milliseconds(40))

            let pending = backend.makeSource(of: Int.self)
            let timedOut = pending.task.timeout(after: .milliseconds(20))
            c.expectEqual(timedOut.settle()?.error as? TaskError, .timedOut(.milliseconds(20)))
            c.expect(pending.task.status == .pending, "the timed task is left alone")

            let quick = backend.succeeded(3).timeout(after: .seconds(30))
            c.expect(try quick.settle()?.get() == 3)

            let token = backend.makeCancellationSource()
            let cancelledDelay = backend.delay(.seconds(30), token: token.token)
            token.cancel()
            c.expectEqual(cancelledDelay.settle()?.isCancelled, true)
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
                _ = try c.require(raced.settle())
                return [raced]
            }()
            _ = results
            c.expect(weakInput == nil, "race must not keep its winner input alive")

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
            c.expectEqual(held.settle()?.isFailure, true)
            c.expect(weakValue == nil, "a failed whenAll must drop the values it collected")
        }
    }

}