import TaskAPI

extension RuleSuite {
    /// C3 Errors.
    enum C3Errors {
        static let checks: [RuleCheck] = [
            RuleCheck("C3.1", "an error thrown by a body fails the task with that error", thrownErrorsFail),
            RuleCheck("C3.2", "a body throwing CancellationError completes the task as cancelled", cancellationErrorCancels),
            RuleCheck("C3.3", "map/flatMap pass failure and cancellation through; recover sees failures only", passThrough),
            RuleCheck("C3.3", "finally runs on every outcome and passes it on unless it throws", finallyPassesOutcome),
        ]

        static func thrownErrorsFail(_ c: RuleContext) throws {
            let backend = c.backend
            let run = backend.run { _ -> Int in throw TestError(code: 1) }
            c.expectEqual(run.settle()?.testError, TestError(code: 1))
            let continued = backend.succeeded(1).continueWith { _ -> Int in throw TestError(code: 2) }
            c.expectEqual(continued.settle()?.testError, TestError(code: 2))
            let mapped = backend.succeeded(1).map(on: backend.inlineExecutor) { _ -> Int in throw TestError(code: 3) }
            c.expectEqual(mapped.settle()?.testError, TestError(code: 3))
            let flat = backend.succeeded(1).flatMap { _ -> any AsyncTask<Int> in throw TestError(code: 4) }
            c.expectEqual(flat.settle()?.testError, TestError(code: 4))
            c.expectThrows(TestError(code: 1)) { try run.get() }
        }

        static func cancellationErrorCancels(_ c: RuleContext) throws {
            let backend = c.backend
            let run = backend.run { _ -> Int in throw CancellationError() }
            c.expectEqual(run.settle()?.isCancelled, true)
            let continued = backend.succeeded(1).continueWith { _ -> Int in throw CancellationError() }
            c.expectEqual(continued.settle()?.isCancelled, true)
            let source = backend.makeCancellationSource()
            let started = backend.makeSource(of: Void.self)
            let loop = backend.run(token: source.token) { token -> Int in
                started.trySucceed()
                while true { try token.checkpoint() }
            }
            c.expect(started.task.settle() != nil)
            source.cancel()
            c.expectEqual(loop.settle()?.isCancelled, true)
        }

        static func passThrough(_ c: RuleContext) throws {
            let backend = c.backend
            let bodies = Counter()
            let failed = backend.failed(TestError(code: 7), as: Int.self)
            let cancelled = backend.cancelled(as: Int.self)
            for input in [failed, cancelled] {
                let mapped = input.map { v -> Int in bodies.increment(); return v }
                let flat = input.flatMap { v -> any AsyncTask<Int> in bodies.increment(); return backend.succeeded(v) }
                let then = input.then { v -> Int in bodies.increment(); return v }
                for task in [mapped, flat, then] {
                    let result = try c.require(task.settle())
                    c.expectEqual(result.kind, input.completion?.kind)
                    c.expectEqual(result.testError, input.completion?.testError)
                }
            }
            c.expectEqual(bodies.count, 0)

            let recovered = failed.recover { error in (error as? TestError)?.code ?? -1 }
            c.expect(try recovered.settle()?.get() == 7)
            let recoveredWithTask = failed.recoverTask { _ -> any AsyncTask<Int> in backend.succeeded(8) }
            c.expect(try recoveredWithTask.settle()?.get() == 8)
            let caught = failed.catch { _ in 9 }
            c.expect(try caught.settle()?.get() == 9)
            let notOnSuccess = backend.succeeded(1).recover { _ in bodies.increment(); return 0 }
            c.expect(try notOnSuccess.settle()?.get() == 1)
            let notOnCancel = cancelled.recover { _ in bodies.increment(); return 0 }
            c.expectEqual(notOnCancel.settle()?.isCancelled, true)
            let rethrown = failed.recover { _ -> Int in throw TestError(code: 10) }
            c.expectEqual(rethrown.settle()?.testError, TestError(code: 10))
            c.expectEqual(bodies.count, 0)
        }

        static func finallyPassesOutcome(_ c: RuleContext) throws {
            let backend = c.backend
            let inputs: [any AsyncTask<Int>] = [
                backend.succeeded(1), backend.failed(TestError(code: 2)), backend.cancelled(),
            ]
            for input in inputs {
                let ran = Counter()
                let passed = input.finally { _ in ran.increment() }
                let result = try c.require(passed.settle())
                c.expectEqual(ran.count, 1)
                c.expectEqual(result.kind, input.completion?.kind)
                c.expectEqual(result.value, input.completion?.value)
                c.expectEqual(result.testError, input.completion?.testError)

                let replaced = input.finally { _ in throw TestError(code: 99) }
                c.expectEqual(replaced.settle()?.testError, TestError(code: 99))

                let gate = backend.makeSource(of: Void.self)
                let waited = input.finallyTask { _ in gate.task }
                c.expect(waited.wait(timeout: .milliseconds(20)) == nil, "finally must wait for its task")
                gate.trySucceed()
                c.expectEqual(waited.settle()?.kind, input.completion?.kind)
            }
        }
    }

}