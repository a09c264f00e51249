import Testing
import TaskAPI

@Suite("C9.2 Task factories")
struct C9FactoryTests {
    @Test("C9.2 a factory's executor and token apply to every task and continuation it vends", arguments: Backends.all)
    func defaultsApply(_ c: BackendCase) throws {
        let backend = c.backend
        let user = UserExecutor()
        var factory = TaskFactory(backend: backend)
        factory.executor = user
        let ran = factory.run { user.isCurrent }
        let withToken = factory.run { token in user.isCurrent && !token.isCancellationRequested }
        let unwrapped = factory.run { _ in backend.succeeded(user.isCurrent) }
        let continued = factory.continueWith(ran) { outcome in try outcome.get() && user.isCurrent }
        let chained = factory.continueWithTask(ran) { outcome in backend.succeeded(try outcome.get() && user.isCurrent) }
        let prepared = factory.prepare { _ in user.isCurrent }
        try prepared.start()
        for task in [ran, withToken, unwrapped, continued, chained, prepared.task] {
            #expect(try task.settle()?.get() == true)
        }
        #expect(user.ran.count == 6)

        let cancellation = backend.makeCancellationSource()
        cancellation.cancel()
        let cancelledFactory = factory.with(token: cancellation.token)
        let bodies = Counter()
        let never = cancelledFactory.run { bodies.increment() }
        let neverContinued = cancelledFactory.continueWith(backend.makeSource(of: Int.self).task) { _ in bodies.increment() }
        #expect(never.settle()?.isCancelled == true)
        #expect(neverContinued.settle()?.isCancelled == true)
        #expect(bodies.count == 0)
        #expect(try cancelledFactory.with(token: .none).run { 1 }.settle()?.get() == 1, "with(token:) replaces the token")
    }

    @Test("C9.2 a factory is a value: setting a default changes that factory only", arguments: Backends.all)
    func factoryIsAValue(_ c: BackendCase) throws {
        let backend = c.backend
        let first = UserExecutor(label: "first")
        let second = UserExecutor(label: "second")
        let original = TaskFactory(backend: backend, executor: first)
        var changed = original
        changed.executor = second
        let onFirst = original.run { first.isCurrent }
        let onSecond = changed.run { second.isCurrent }
        let viaWith = original.with(executor: second).run { second.isCurrent }
        #expect(try onFirst.settle()?.get() == true)
        #expect(try onSecond.settle()?.get() == true)
        #expect(try viaWith.settle()?.get() == true)
        #expect(original.executor === first)
    }
}
