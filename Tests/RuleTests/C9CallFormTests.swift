import Testing
import TaskAPI

@Suite("C9.1 Call forms")
struct C9CallFormTests {
    @Test("C9.1 run takes a body with no argument; run, continueWith and continueWithTask default the token", arguments: Backends.all)
    func defaultedForms(_ c: BackendCase) throws {
        let backend = c.backend
        let user = UserExecutor()
        let forty = backend.run { 40 }
        let onUser = backend.run(on: user) { _ in user.isCurrent ? "x" : "elsewhere" }
        let continued = forty.continueWith(on: user) { outcome in user.isCurrent ? try outcome.get() + 1 : -1 }
        let chained = forty.continueWithTask(on: user) { outcome in
            backend.succeeded(user.isCurrent ? try outcome.get() + 2 : -1)
        }
        let plain = forty.continueWith { outcome in try outcome.get() + 3 }
        let plainTask = forty.continueWithTask { outcome in backend.succeeded(try outcome.get() + 4) }
        #expect(try forty.settle()?.get() == 40)
        #expect(try onUser.settle()?.get() == "x")
        #expect(try continued.settle()?.get() == 41)
        #expect(try chained.settle()?.get() == 42)
        #expect(try plain.settle()?.get() == 43)
        #expect(try plainTask.settle()?.get() == 44)
        #expect(user.ran.count == 3)
    }

    @Test("C9.1 a defaulted-token form still honours a token cancelled before its body starts", arguments: Backends.all)
    func defaultedFormsHonourToken(_ c: BackendCase) {
        let backend = c.backend
        let cancelled = backend.makeCancellationSource()
        cancelled.cancel()
        let ran = Counter()
        let run = backend.run(token: cancelled.token) { ran.increment() }
        let gate = backend.makeSource(of: Int.self)
        let continued = gate.task.continueWith(on: backend.makeSerialExecutor(label: "c9.1"), token: cancelled.token) { _ in
            ran.increment()
        }
        #expect(run.settle()?.isCancelled == true)
        #expect(continued.settle()?.isCancelled == true, "C4.3: cancelled at once, not when the antecedent completes")
        gate.trySucceed(1)
        #expect(ran.count == 0)
    }

    @Test("C9.1 whenAll joins tasks of different types as a tuple, in input order, failing fast", arguments: Backends.all)
    func typedWhenAll(_ c: BackendCase) throws {
        let backend = c.backend
        let number = backend.makeSource(of: Int.self)
        let text = backend.makeSource(of: String.self)
        let flag = backend.makeSource(of: Bool.self)
        let joined = backend.whenAll(number.task, text.task, flag.task)
        flag.trySucceed(true)
        text.trySucceed("s")
        #expect(joined.wait(timeout: .milliseconds(20)) == nil, "must wait for every input")
        number.trySucceed(7)
        let (n, s, f) = try #require(try joined.settle()?.get())
        #expect(n == 7 && s == "s" && f)

        for failure in [Completion<String>.failure(TestError(code: 1)), .cancelled] {
            let pending = backend.makeSource(of: Int.self)
            let failing = backend.makeSource(of: String.self)
            let all = backend.whenAll(pending.task, failing.task)
            failing.tryComplete(failure)
            let outcome = try #require(all.settle(), "fail-fast: must not wait for the pending input")
            #expect(outcome.kind == failure.kind)
            #expect(outcome.testError == failure.testError)
            #expect(pending.task.status == .pending)
        }
    }

    @Test("C9.1 wait and get are statements; failed and cancelled take their type from the context", arguments: Backends.all)
    func statementsAndInference(_ c: BackendCase) throws {
        let backend = c.backend
        let task = backend.run { 1 }
        task.wait()
        #expect(task.status == .completed)
        try backend.succeeded(2).get()
        let failed: any AsyncTask<Int> = backend.failed(TestError(code: 3))
        let cancelled: any AsyncTask<String> = backend.cancelled()
        #expect(failed.completion?.testError == TestError(code: 3))
        #expect(cancelled.completion?.isCancelled == true)
        let (n, s) = try backend.whenAll(backend.succeeded(1), backend.succeeded("x")).get()
        #expect(n == 1 && s == "x")
    }
}
