import Testing
import TaskAPI

@Suite("C9.5-C9.6 Run forms")
struct C9RunTests {
    @Test("C9.5 run with a body returning a task takes that task's outcome", arguments: Backends.all)
    func unwrappedRun(_ c: BackendCase) throws {
        let backend = c.backend
        let inner = backend.makeSource(of: Int.self)
        let unwrapped = backend.run { inner.task }
        #expect(unwrapped.wait(timeout: .milliseconds(20)) == nil, "waits for the inner task")
        inner.trySucceed(5)
        #expect(try unwrapped.settle()?.get() == 5)
        let failing = backend.run(on: backend.makeSerialExecutor(label: "c9.5"), token: .none) { _ in
            backend.failed(TestError(code: 1), as: Int.self)
        }
        #expect(failing.settle()?.testError == TestError(code: 1))
        let cancellation = backend.makeCancellationSource()
        cancellation.cancel()
        let bodies = Counter()
        let never = backend.run(token: cancellation.token) { _ -> any AsyncTask<Int> in
            bodies.increment()
            return backend.succeeded(1)
        }
        #expect(never.settle()?.isCancelled == true)
        #expect(bodies.count == 0)
    }

    @Test("C9.6 runAsync runs an async body on the backend's default executor", arguments: Backends.all)
    func runAsyncValue(_ c: BackendCase) throws {
        let backend = c.backend
        let executor = backend.defaultExecutor
        let task = backend.runAsync { () async throws -> Bool in
            await Task.yield()
            return executor.isCurrent
        }
        #expect(try task.settle()?.get() == true)
        #expect(backend.runAsync { () async throws -> Int in throw TestError(code: 2) }.settle()?.testError == TestError(code: 2))
        #expect(backend.runAsync { () async throws -> Int in throw CancellationError() }.settle()?.isCancelled == true)
    }

    @Test("C9.6 run picks the async body only for a closure that awaits, in async code too", arguments: Backends.all)
    func runPicksAsyncOnlyWhenAwaiting(_ c: BackendCase) async throws {
        let backend = c.backend
        let sync = backend.run { withUnsafeCurrentTask { $0 == nil } }
        let async = backend.run { () async throws -> Bool in
            await Task.yield()
            return withUnsafeCurrentTask { $0 != nil }
        }
        #expect(try await sync.value, "a closure without await is a synchronous body: no Swift task")
        #expect(try await async.value, "a closure with await runs as a Swift task")
    }

    @Test("C9.6 runAsync bridges cancellation both ways", arguments: Backends.all)
    func runAsyncCancellation(_ c: BackendCase) throws {
        let backend = c.backend
        let early = backend.makeCancellationSource()
        early.cancel()
        let bodies = Counter()
        let never = backend.runAsync(token: early.token) { bodies.increment() }
        #expect(never.completion?.isCancelled == true, "cancelled at once, before starting")

        let cancellation = backend.makeCancellationSource()
        let entered = backend.makeSource(of: Void.self)
        let sleeping = backend.runAsync(token: cancellation.token) { () async throws -> Int in
            bodies.increment()
            entered.trySucceed()
            try await Task.sleep(for: .seconds(60))
            return 1
        }
        #expect(entered.task.settle() != nil)
        cancellation.cancel()
        #expect(sleeping.settle()?.isCancelled == true, "token cancel cancels the Swift task; its CancellationError is .cancelled")
        #expect(bodies.count == 1)
    }
}
