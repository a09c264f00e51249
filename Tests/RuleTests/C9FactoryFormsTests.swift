import ScheduleKit
import TaskAPI
import Testing

/// C9.2: a `TaskFactory` offers every form the backend and the task offer, bodies with and
/// without a token, and each runs its body on the factory's executor under the factory's token.
@Suite("C9.2 Every form from a factory")
struct C9FactoryFormsTests {
    /// Every form a factory vends, each with a body that answers whether it ran on `executor`.
    /// `bodies` counts the bodies that ran.
    static func everyForm(_ factory: TaskFactory, executor: any AsyncTaskExecutor, bodies: Counter) throws -> [String: any AsyncTask<Bool>]
    {
        let backend = factory.backend
        let value = backend.succeeded(1)
        let failed = backend.failed(UnwrapError.antecedent, as: Int.self)
        let here = { @Sendable () -> Bool in
            bodies.increment()
            return executor.isCurrent
        }
        let prepared = factory.prepare { here() }
        let preparedWithToken = factory.prepare { _ in here() }
        let preparedTask = factory.prepareTask { backend.succeeded(here()) }
        let preparedTaskWithToken = factory.prepareTask { _ in backend.succeeded(here()) }
        for start in [prepared, preparedWithToken, preparedTask, preparedTaskWithToken] {
            try start.start()
        }
        let finallySeen = Locked(false)
        let finallyTaskSeen = Locked(false)
        let whenCompleteSeen = backend.makeSource(of: Bool.self)
        factory.whenComplete(value) { _ in whenCompleteSeen.trySucceed(here()) }
        return [
            "run": factory.run { here() },
            "run with a token": factory.run { _ in here() },
            "runTask": factory.runTask { backend.succeeded(here()) },
            "runTask with a token": factory.runTask { _ in backend.succeeded(here()) },
            "prepare": prepared.task,
            "prepare with a token": preparedWithToken.task,
            "prepareTask": preparedTask.task,
            "prepareTask with a token": preparedTaskWithToken.task,
            "retry": factory.retry(attempts: 2) { here() },
            "retry with a token": factory.retry(attempts: 2) { _ in here() },
            "retryTask": factory.retryTask(attempts: 2) { backend.succeeded(here()) },
            "retryTask with a token": factory.retryTask(attempts: 2) { _ in backend.succeeded(here()) },
            "continueWith": factory.continueWith(value) { _ in here() },
            "continueWithTask": factory.continueWithTask(value) { _ in backend.succeeded(here()) },
            "map": factory.map(value) { _ in here() },
            "flatMap": factory.flatMap(value) { _ in backend.succeeded(here()) },
            "then": factory.then(value) { _ in here() },
            "recover": factory.recover(failed) { _ in here() ? 1 : 0 }.map { $0 == 1 },
            "recoverTask": factory.recoverTask(failed) { _ in backend.succeeded(here() ? 1 : 0) }.map { $0 == 1 },
            "catch": factory.catch(failed) { _ in here() ? 1 : 0 }.map { $0 == 1 },
            "finally": factory.finally(value) { _ in finallySeen.withLock { $0 = here() } }.map { _ in finallySeen.withLock { $0 } },
            "finallyTask": factory.finallyTask(value) { _ in
                finallyTaskSeen.withLock { $0 = here() }
                return backend.succeeded(())
            }.map { _ in finallyTaskSeen.withLock { $0 } },
            "whenComplete": whenCompleteSeen.task
        ]
    }

    @Test("C9.2 every form a factory vends runs its body on the factory's executor", arguments: Backends.all)
    func everyFormOnTheExecutor(_ c: BackendCase) throws {
        let backend = c.backend
        let executor = backend.makeSerialExecutor(label: "c9.2")
        let factory = TaskFactory(backend: backend, executor: executor)
        let bodies = Counter()
        let forms = try Self.everyForm(factory, executor: executor, bodies: bodies)
        for (name, task) in forms {
            #expect(try task.settle()?.get() == true, "\(name)")
        }
        #expect(bodies.count == forms.count)
        #expect(factory.delay(.milliseconds(1)).settle()?.isSuccess == true)
    }

    @Test("C9.2 a factory's cancelled token cancels every form it vends, and no body runs", arguments: Backends.all)
    func everyFormUnderTheToken(_ c: BackendCase) throws {
        let backend = c.backend
        let cancellation = backend.makeCancellationSource()
        cancellation.cancel()
        let executor = backend.makeSerialExecutor(label: "c9.2")
        let factory = TaskFactory(backend: backend, executor: executor, token: cancellation.token)
        // `finally`, `finallyTask` and `whenComplete` run on every outcome: the token does not
        // apply to them (C3.3), as for the task's own.
        let unaffected: Set = ["finally", "finallyTask", "whenComplete"]
        let bodies = Counter()
        let forms = try Self.everyForm(factory, executor: executor, bodies: bodies)
        for (name, task) in forms where !unaffected.contains(name) {
            #expect(task.settle()?.isCancelled == true, "\(name)")
        }
        for name in unaffected {
            #expect(forms[name]?.settle()?.isSuccess == true, "\(name)")
        }
        #expect(bodies.count == unaffected.count, "only the bodies that run on every outcome ran")
        #expect(factory.delay(.seconds(60)).settle()?.isCancelled == true)
    }
}
