import Testing
import TaskAPI

@Suite("C3 Errors")
struct C3ErrorTests {
    @Test("C3.1 an error thrown by a body fails the task with that error", arguments: Backends.all)
    func thrownErrorsFail(_ c: BackendCase) throws {
        let backend = c.backend
        let run = backend.run { _ -> Int in throw TestError(code: 1) }
        #expect(run.settle()?.testError == TestError(code: 1))
        let continued = backend.succeeded(1).continueWith { _ -> Int in throw TestError(code: 2) }
        #expect(continued.settle()?.testError == TestError(code: 2))
        let mapped = backend.succeeded(1).map(on: backend.inlineExecutor) { _ -> Int in throw TestError(code: 3) }
        #expect(mapped.settle()?.testError == TestError(code: 3))
        let flat = backend.succeeded(1).flatMap { _ -> any AsyncTask<Int> in throw TestError(code: 4) }
        #expect(flat.settle()?.testError == TestError(code: 4))
        #expect(throws: TestError(code: 1)) { try run.get() }
    }

    @Test("C3.2 a body throwing CancellationError completes the task as cancelled", arguments: Backends.all)
    func cancellationErrorCancels(_ c: BackendCase) throws {
        let backend = c.backend
        let run = backend.run { _ -> Int in throw CancellationError() }
        #expect(run.settle()?.isCancelled == true)
        let continued = backend.succeeded(1).continueWith { _ -> Int in throw CancellationError() }
        #expect(continued.settle()?.isCancelled == true)
        let source = backend.makeCancellationSource()
        let started = backend.makeSource(of: Void.self)
        let loop = backend.run(token: source.token) { token -> Int in
            started.trySucceed()
            while true { try token.checkpoint() }
        }
        #expect(started.task.settle() != nil)
        source.cancel()
        #expect(loop.settle()?.isCancelled == true)
    }

    @Test("C3.3 map/flatMap pass failure and cancellation through; recover sees failures only", arguments: Backends.all)
    func passThrough(_ c: BackendCase) throws {
        let backend = c.backend
        let bodies = Counter()
        let failed = backend.failed(TestError(code: 7), as: Int.self)
        let cancelled = backend.cancelled(as: Int.self)
        for input in [failed, cancelled] {
            let mapped = input.map { v -> Int in bodies.increment(); return v }
            let flat = input.flatMap { v -> any AsyncTask<Int> in bodies.increment(); return backend.succeeded(v) }
            let then = input.then { v -> Int in bodies.increment(); return v }
            for task in [mapped, flat, then] {
                let result = try #require(task.settle())
                #expect(result.kind == input.completion?.kind)
                #expect(result.testError == input.completion?.testError)
            }
        }
        #expect(bodies.count == 0)

        let recovered = failed.recover { error in (error as? TestError)?.code ?? -1 }
        #expect(try recovered.settle()?.get() == 7)
        let recoveredWithTask = failed.recover { _ -> any AsyncTask<Int> in backend.succeeded(8) }
        #expect(try recoveredWithTask.settle()?.get() == 8)
        let caught = failed.catch { _ in 9 }
        #expect(try caught.settle()?.get() == 9)
        let notOnSuccess = backend.succeeded(1).recover { _ in bodies.increment(); return 0 }
        #expect(try notOnSuccess.settle()?.get() == 1)
        let notOnCancel = cancelled.recover { _ in bodies.increment(); return 0 }
        #expect(notOnCancel.settle()?.isCancelled == true)
        let rethrown = failed.recover { _ -> Int in throw TestError(code: 10) }
        #expect(rethrown.settle()?.testError == TestError(code: 10))
        #expect(bodies.count == 0)
    }

    @Test("C3.3 finally runs on every outcome and passes it on unless it throws", arguments: Backends.all)
    func finallyPassesOutcome(_ c: BackendCase) throws {
        let backend = c.backend
        let inputs: [any AsyncTask<Int>] = [
            backend.succeeded(1), backend.failed(TestError(code: 2)), backend.cancelled(),
        ]
        for input in inputs {
            let ran = Counter()
            let passed = input.finally { _ in ran.increment() }
            let result = try #require(passed.settle())
            #expect(ran.count == 1)
            #expect(result.kind == input.completion?.kind)
            #expect(result.value == input.completion?.value)
            #expect(result.testError == input.completion?.testError)

            let replaced = input.finally { _ in throw TestError(code: 99) }
            #expect(replaced.settle()?.testError == TestError(code: 99))

            let gate = backend.makeSource(of: Void.self)
            let waited = input.finallyTask { _ in gate.task }
            #expect(waited.wait(timeout: .milliseconds(20)) == nil, "finally must wait for its task")
            gate.trySucceed()
            #expect(waited.settle()?.kind == input.completion?.kind)
        }
    }
}
