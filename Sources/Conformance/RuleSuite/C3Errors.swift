import TaskAPI

extension RuleSuite {
    /// C3 Errors.
    enum C3Errors {
        static func thrownErrorsFail(_ c: RuleContext) throws {
            let backend = c.backend
            let run = backend.run { _ -> Int in throw TestError(code: 1) }
            let cases: [(any AsyncTask<Int>, Int, String)] = [
                (run, 1, "backend.run { _ in throw TestError(code: 1) }"),
                (
                    backend.succeeded(1).continueWith { _ -> Int in throw TestError(code: 2) }, 2,
                    "backend.succeeded(1).continueWith { _ in throw TestError(code: 2) }"
                ),
                (
                    backend.succeeded(1).map(on: backend.inlineExecutor) { _ -> Int in throw TestError(code: 3) }, 3,
                    "backend.succeeded(1).map(on: backend.inlineExecutor) { _ in throw TestError(code: 3) }"
                ),
                (
                    backend.succeeded(1).flatMap { _ -> any AsyncTask<Int> in throw TestError(code: 4) }, 4,
                    "backend.succeeded(1).flatMap { _ in throw TestError(code: 4) }"
                )
            ]
            for (task, code, call) in cases {
                c.expectOutcome(
                    task, .failure(TestError(code: code)), "a body's thrown error fails the task with that very error", call: call)
            }
            c.expectThrows(
                TestError(code: 1), "get() rethrows the failure's error", call: "try backend.run { _ in throw TestError(code: 1) }.get()"
            ) {
                try run.get()
            }
        }

        static func cancellationErrorCancels(_ c: RuleContext) throws {
            let backend = c.backend
            c.expectOutcome(
                backend.run { _ -> Int in throw CancellationError() }, .cancelled,
                "a body throwing CancellationError completes the task cancelled", call: "backend.run { _ in throw CancellationError() }")
            c.expectOutcome(
                backend.succeeded(1).continueWith { _ -> Int in throw CancellationError() }, .cancelled,
                "a continuation throwing CancellationError completes the task cancelled",
                call: "backend.succeeded(1).continueWith { _ in throw CancellationError() }")
            let source = backend.makeCancellationSource()
            let started = backend.makeSource(of: Void.self)
            let loop = backend.run(token: source.token) { token -> Int in
                started.trySucceed()
                while true { try token.checkpoint() }
            }
            let call = "backend.run(token:) { token in while true { try token.checkpoint() } }, then source.cancel()"
            c.expectCompletes(started.task, "the body starts", call: call)
            source.cancel()
            c.expectOutcome(loop, .cancelled, "a body stopped by its checkpoint completes the task cancelled", call: call)
        }

        static func passThrough(_ c: RuleContext) throws {
            let backend = c.backend
            let bodies = Counter()
            let failed = backend.failed(TestError(code: 7), as: Int.self)
            let cancelled = backend.cancelled(as: Int.self)
            for (input, name) in [(failed, "backend.failed(TestError(code: 7))"), (cancelled, "backend.cancelled()")] {
                let mapped = input.map { v -> Int in
                    bodies.increment(); return v
                }
                let flat = input.flatMap { v -> any AsyncTask<Int> in
                    bodies.increment(); return backend.succeeded(v)
                }
                let then = input.then { v -> Int in
                    bodies.increment(); return v
                }
                for (task, form) in [(mapped, "map"), (flat, "flatMap"), (then, "then")] {
                    c.expectOutcome(
                        task, input.completion ?? .cancelled, "\(form) passes a failure or cancellation through",
                        call: "\(name).\(form) { ... }")
                }
            }
            c.expectEqual(
                bodies.count, 0, "map, flatMap and then run no body on a failure or cancellation",
                call: "map, flatMap and then on failed and cancelled tasks")

            c.expectOutcome(
                failed.recover { error in (error as? TestError)?.code ?? -1 }, .success(7),
                "recover sees the failure's error", call: "backend.failed(TestError(code: 7)).recover { error in code of error }")
            c.expectOutcome(
                failed.recoverTask { _ -> any AsyncTask<Int> in backend.succeeded(8) }, .success(8),
                "recoverTask takes the returned task's outcome",
                call: "backend.failed(TestError(code: 7)).recoverTask { _ in backend.succeeded(8) }")
            c.expectOutcome(
                failed.catch { _ in 9 }, .success(9), "catch recovers a failure",
                call: "backend.failed(TestError(code: 7)).catch { _ in 9 }")
            c.expectOutcome(
                backend.succeeded(1).recover { _ in
                    bodies.increment(); return 0
                }, .success(1),
                "recover passes a success through", call: "backend.succeeded(1).recover { _ in 0 }")
            c.expectOutcome(
                cancelled.recover { _ in
                    bodies.increment(); return 0
                }, .cancelled,
                "recover passes a cancellation through", call: "backend.cancelled().recover { _ in 0 }")
            c.expectOutcome(
                failed.recover { _ -> Int in throw TestError(code: 10) }, .failure(TestError(code: 10)),
                "an error thrown by recover fails the task with it",
                call: "backend.failed(TestError(code: 7)).recover { _ in throw TestError(code: 10) }")
            c.expectEqual(
                bodies.count, 0, "recover runs no body on a success or cancellation",
                call: "backend.succeeded(1).recover { ... }, backend.cancelled().recover { ... }")
        }

        static func finallyPassesOutcome(_ c: RuleContext) throws {
            let backend = c.backend
            let inputs: [(any AsyncTask<Int>, String)] = [
                (backend.succeeded(1), "backend.succeeded(1)"), (backend.failed(TestError(code: 2)), "backend.failed(TestError(code: 2))"),
                (backend.cancelled(), "backend.cancelled()")
            ]
            for (input, name) in inputs {
                let outcome = input.completion ?? .cancelled
                let ran = Counter()
                let passed = input.finally { _ in ran.increment() }
                c.expectOutcome(passed, outcome, "finally passes its antecedent's outcome on", call: "\(name).finally { _ in }")
                c.expectEqual(ran.count, 1, "finally's body runs once, whatever the outcome", call: "\(name).finally { _ in }")
                c.expectOutcome(
                    input.finally { _ in throw TestError(code: 99) }, .failure(TestError(code: 99)),
                    "an error thrown by finally replaces the outcome", call: "\(name).finally { _ in throw TestError(code: 99) }")

                let gate = backend.makeSource(of: Void.self)
                let waited = input.finallyTask { _ in gate.task }
                let call = "\(name).finallyTask { _ in gate.task }"
                c.expectPending(waited, "finallyTask waits for the task its body returns", call: call + ", gate pending")
                gate.trySucceed()
                c.expectOutcome(waited, outcome, "finallyTask then passes the antecedent's outcome on", call: call + ", gate succeeded")
            }
        }
    }

}
