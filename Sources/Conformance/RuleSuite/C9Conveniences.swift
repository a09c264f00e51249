import Dispatch
import TaskAPI

    /// An actor pinned to a "ui" serial executor of any backend (C9.9): its methods run as jobs of
    /// that executor, and continuations on that executor may use its state synchronously.
    actor Screen {
        let ui: any ActorExecutor
        var title = ""

        init(ui: any ActorExecutor) {
            self.ui = ui
        }

        nonisolated var unownedExecutor: UnownedSerialExecutor { ui.asUnownedSerialExecutor() }

        /// Sets the title; `true` if it ran on the ui executor.
        func show(_ text: String) -> Bool {
            title = text
            return ui.isCurrent
        }
    }

extension RuleSuite {
    /// C9.1 Call forms.
    enum C9CallForm {
        static let checks: [RuleCheck] = [
            RuleCheck("C9.1", "run takes a body with no argument; run, continueWith and continueWithTask default the token", defaultedForms),
            RuleCheck("C9.1", "a defaulted-token form still honours a token cancelled before its body starts", defaultedFormsHonourToken),
            RuleCheck("C9.1", "whenAll joins tasks of different types as a tuple, in input order, failing fast", typedWhenAll),
            RuleCheck("C9.1", "wait and get are statements; failed and cancelled take their type from the context", statementsAndInference),
        ]

        static func defaultedForms(_ c: RuleContext) throws {
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
            c.expect(try forty.settle()?.get() == 40)
            c.expect(try onUser.settle()?.get() == "x")
            c.expect(try continued.settle()?.get() == 41)
            c.expect(try chained.settle()?.get() == 42)
            c.expect(try plain.settle()?.get() == 43)
            c.expect(try plainTask.settle()?.get() == 44)
            c.expectEqual(user.ran.count, 3)
        }

        static func defaultedFormsHonourToken(_ c: RuleContext) throws {
            let backend = c.backend
            let cancelled = backend.makeCancellationSource()
            cancelled.cancel()
            let ran = Counter()
            let run = backend.run(token: cancelled.token) { ran.increment() }
            let gate = backend.makeSource(of: Int.self)
            let continued = gate.task.continueWith(on: backend.makeSerialExecutor(label: "c9.1"), token: cancelled.token) { _ in
                ran.increment()
            }
            c.expectEqual(run.settle()?.isCancelled, true)
            c.expect(continued.settle()?.isCancelled == true, "C4.3: cancelled at once, not when the antecedent completes")
            gate.trySucceed(1)
            c.expectEqual(ran.count, 0)
        }

        static func typedWhenAll(_ c: RuleContext) throws {
            let backend = c.backend
            let number = backend.makeSource(of: Int.self)
            let text = backend.makeSource(of: String.self)
            let flag = backend.makeSource(of: Bool.self)
            let joined = backend.whenAll(number.task, text.task, flag.task)
            flag.trySucceed(true)
            text.trySucceed("s")
            c.expect(joined.wait(timeout: .milliseconds(20)) == nil, "must wait for every input")
            number.trySucceed(7)
            let (n, s, f) = try c.require(try joined.settle()?.get())
            c.expect(n == 7 && s == "s" && f)

            for failure in [Completion<String>.failure(TestError(code: 1)), .cancelled] {
                let pending = backend.makeSource(of: Int.self)
                let failing = backend.makeSource(of: String.self)
                let all = backend.whenAll(pending.task, failing.task)
                failing.tryComplete(failure)
                let outcome = try c.require(all.settle(), "fail-fast: must not wait for the pending input")
                c.expectEqual(outcome.kind, failure.kind)
                c.expectEqual(outcome.testError, failure.testError)
                c.expectEqual(pending.task.status, .pending)
            }
        }

        static func statementsAndInference(_ c: RuleContext) throws {
            let backend = c.backend
            let task = backend.run { 1 }
            task.wait()
            c.expectEqual(task.status, .completed)
            try backend.succeeded(2).get()
            let failed: any AsyncTask<Int> = backend.failed(TestError(code: 3))
            let cancelled: any AsyncTask<String> = backend.cancelled()
            c.expectEqual(failed.completion?.testError, TestError(code: 3))
            c.expectEqual(cancelled.completion?.isCancelled, true)
            let (n, s) = try backend.whenAll(backend.succeeded(1), backend.succeeded("x")).get()
            c.expect(n == 1 && s == "x")
        }
    }

    /// C9.2 Task factories.
    enum C9Factory {
        static let checks: [RuleCheck] = [
            RuleCheck("C9.2", "a factory's executor and token apply to every task and continuation it vends", defaultsApply),
            RuleCheck("C9.2", "a factory is a value: setting a default changes that factory only", factoryIsAValue),
        ]

        static func defaultsApply(_ c: RuleContext) throws {
            let backend = c.backend
            let user = UserExecutor()
            var factory = TaskFactory(backend: backend)
            factory.executor = user
            let ran = factory.run { user.isCurrent }
            let withToken = factory.run { token in user.isCurrent && !token.isCancellationRequested }
            let unwrapped = factory.runTask { _ in backend.succeeded(user.isCurrent) }
            let continued = factory.continueWith(ran) { outcome in try outcome.get() && user.isCurrent }
            let chained = factory.continueWithTask(ran) { outcome in backend.succeeded(try outcome.get() && user.isCurrent) }
            let prepared = factory.prepare { _ in user.isCurrent }
            try prepared.start()
            for task in [ran, withToken, unwrapped, continued, chained, prepared.task] {
                c.expect(try task.settle()?.get() == true)
            }
            c.expectEqual(user.ran.count, 6)

            let cancellation = backend.makeCancellationSource()
            cancellation.cancel()
            let cancelledFactory = factory.with(token: cancellation.token)
            let bodies = Counter()
            let never = cancelledFactory.run { bodies.increment() }
            let neverContinued = cancelledFactory.continueWith(backend.makeSource(of: Int.self).task) { _ in bodies.increment() }
            c.expectEqual(never.settle()?.isCancelled, true)
            c.expectEqual(neverContinued.settle()?.isCancelled, true)
            c.expectEqual(bodies.count, 0)
            c.expect(try cancelledFactory.with(token: .none).run { 1 }.settle()?.get() == 1, "with(token:) replaces the token")
        }

        static func factoryIsAValue(_ c: RuleContext) throws {
            let backend = c.backend
            let first = UserExecutor(label: "first")
            let second = UserExecutor(label: "second")
            let original = TaskFactory(backend: backend, executor: first)
            var changed = original
            changed.executor = second
            let onFirst = original.run { first.isCurrent }
            let onSecond = changed.run { second.isCurrent }
            let viaWith = original.with(executor: second).run { second.isCurrent }
            c.expect(try onFirst.settle()?.get() == true)
            c.expect(try onSecond.settle()?.get() == true)
            c.expect(try viaWith.settle()?.get() == true)
            c.expect(original.executor === first)
        }
    }

    /// C9.3 Prepared tasks.
    enum C9PreparedTask {
        static let checks: [RuleCheck] = [
            RuleCheck("C9.3", "a prepared task is pending until started once, on the executor chosen at start", startsOnce),
            RuleCheck("C9.3", "racing starts: exactly one wins, the body runs once", racingStarts),
            RuleCheck("C9.3", "cancelled before start: completes cancelled at once and the body never runs", cancelBeforeStart),
            RuleCheck("C9.3", "a prepared task dropped before start completes its task cancelled", droppedBeforeStart),
            RuleCheck("C9.3", "cancelled after start: the body sees it through its token and is not cut short", cancelAfterStart),
        ]

        static func startsOnce(_ c: RuleContext) throws {
            let backend = c.backend
            let user = UserExecutor()
            let bodies = Counter()
            let prepared = backend.prepare { () -> Bool in
                bodies.increment()
                return user.isCurrent
            }
            let early = prepared.task.map { !$0 }
            c.expect(prepared.task.wait(timeout: .milliseconds(20)) == nil, "must not start before start()")
            c.expectEqual(prepared.task.status, .pending)
            c.expect(!prepared.isStarted)
            try prepared.start(on: user)
            c.expect(try prepared.task.settle()?.get() == true)
            c.expect(try early.settle()?.get() == false, "a continuation registered before start runs")
            c.expectThrows(StartError.alreadyStarted) { try prepared.start() }
            c.expect(!prepared.tryStart())
            c.expect(prepared.isStarted)
            c.expectEqual(bodies.count, 1)
        }

        static func racingStarts(_ c: RuleContext) throws {
            let backend = c.backend
            for _ in 0..<50 {
                let bodies = Counter()
                let winners = Counter()
                let prepared = backend.prepare { bodies.increment() }
                race(4) { _ in if prepared.tryStart() { winners.increment() } }
                c.expect(try prepared.task.settle()?.get() == 1)
                c.expectEqual(winners.count, 1)
                c.expectEqual(bodies.count, 1)
            }
        }

        static func cancelBeforeStart(_ c: RuleContext) throws {
            let backend = c.backend
            let bodies = Counter()
            let prepared = backend.prepare { bodies.increment() }
            prepared.cancel()
            c.expectEqual(prepared.task.completion?.isCancelled, true)
            try prepared.start()
            c.expectThrows(StartError.alreadyStarted) { try prepared.start() }

            let source = backend.makeCancellationSource()
            let viaToken = backend.prepare(token: source.token) { bodies.increment() }
            source.cancel()
            c.expectEqual(viaToken.task.completion?.isCancelled, true)
            c.expect(viaToken.tryStart())
            c.expectEqual(viaToken.task.settle()?.isCancelled, true)
            c.expectEqual(bodies.count, 0)
        }

        static func droppedBeforeStart(_ c: RuleContext) throws {
            let backend = c.backend
            let bodies = Counter()
            var prepared: PreparedTask<Int>? = backend.prepare { bodies.increment() }
            let task = prepared?.task
            let continued = task?.map { $0 + 1 }
            prepared = nil
            c.expectEqual(task?.completion?.isCancelled, true)
            c.expectEqual(continued?.settle()?.isCancelled, true)
            c.expectEqual(bodies.count, 0)
        }

        static func cancelAfterStart(_ c: RuleContext) throws {
            let backend = c.backend
            let entered = backend.makeSource(of: Void.self)
            let proceed = backend.makeSource(of: Void.self)
            let prepared = backend.prepare { token -> Int in
                entered.trySucceed()
                _ = proceed.task.wait(timeout: patience)
                try token.checkpoint()
                return 1
            }
            try prepared.start()
            c.expect(entered.task.settle() != nil)
            prepared.cancel()
            c.expect(prepared.task.status == .running, "a started body is not cut short")
            proceed.trySucceed()
            c.expectEqual(prepared.task.settle()?.isCancelled, true)
        }
    }

    /// C9.4 Retry.
    enum C9Retry {
        static let checks: [RuleCheck] = [
            RuleCheck("C9.4", "retry stops at the first success, or after attempts with the last attempt's outcome", attempts),
            RuleCheck("C9.4", "retry waits its backoff between attempts, and a token cancelled meanwhile cancels at once", backoffAndToken),
        ]

        static func attempts(_ c: RuleContext) throws {
            let backend = c.backend
            let tries = Counter()
            let third = backend.retry(attempts: 5) { _ -> Int in
                let attempt = tries.increment()
                if attempt < 3 { throw TestError(code: attempt) }
                return attempt
            }
            c.expect(try third.settle()?.get() == 3)
            c.expectEqual(tries.count, 3)

            let failures = Counter()
            let exhausted = backend.retryTask(attempts: 3) { _ in
                backend.failed(TestError(code: failures.increment()), as: Int.self)
            }
            c.expect(exhausted.settle()?.testError == TestError(code: 3), "the last attempt's error")
            c.expectEqual(failures.count, 3)

            let declined = Counter()
            let stopped = backend.retry(attempts: 5, while: { attempt, error in (error as? TestError)?.code != 1 }) { _ -> Int in
                throw TestError(code: declined.increment())
            }
            c.expectEqual(stopped.settle()?.testError, TestError(code: 1))
            c.expect(declined.count == 1, "shouldRetry said no")

            let cancelledAttempts = Counter()
            let cancelledAttempt = backend.retry(attempts: 5) { _ -> Int in
                cancelledAttempts.increment()
                throw CancellationError()
            }
            c.expectEqual(cancelledAttempt.settle()?.isCancelled, true)
            c.expect(cancelledAttempts.count == 1, "a cancelled attempt is not retried")

            let once = Counter()
            c.expect(backend.retry(attempts: 0) { _ -> Int in throw TestError(code: once.increment()) }.settle()?.testError != nil)
            c.expect(once.count == 1, "attempts below 1 are taken as 1")
        }

        static func backoffAndToken(_ c: RuleContext) throws {
            let backend = c.backend
            let start = ContinuousClock.now
            let tries = Counter()
            let slow = backend.retry(attempts: 3, backoff: .fixed(.milliseconds(30))) { _ -> Int in
                throw TestError(code: tries.increment())
            }
            c.expectEqual(slow.settle()?.testError, TestError(code: 3))
            c.expect(ContinuousClock.now - start >= .milliseconds(60), "two waits of 30 ms")

            let cancellation = backend.makeCancellationSource()
            let failedOnce = backend.makeSource(of: Void.self)
            let waiting = backend.retry(attempts: 3, backoff: .fixed(.seconds(60)), token: cancellation.token) { _ -> Int in
                failedOnce.trySucceed()
                throw TestError(code: 1)
            }
            c.expect(failedOnce.task.settle() != nil)
            c.expect(waiting.wait(timeout: .milliseconds(20)) == nil, "waits its backoff")
            cancellation.cancel()
            c.expect(waiting.settle()?.isCancelled == true, "cancelled at once, not after 60 s")
        }
    }

    /// C9.5-C9.6 Run forms.
    enum C9Run {
        static let checks: [RuleCheck] = [
            RuleCheck("C9.5", "runTask with a body returning a task takes that task's outcome", unwrappedRun),
            RuleCheck("C9.6", "runAsync runs an async body on the backend's default executor", runAsyncValue),
            RuleCheck("C9.6", "run picks the async body only for a closure that awaits, in async code too", async: runPicksAsyncOnlyWhenAwaiting),
            RuleCheck("C9.6", "runAsync bridges cancellation both ways", runAsyncCancellation),
        ]

        static func unwrappedRun(_ c: RuleContext) throws {
            let backend = c.backend
            let inner = backend.makeSource(of: Int.self)
            let unwrapped = backend.runTask { inner.task }
            c.expect(unwrapped.wait(timeout: .milliseconds(20)) == nil, "waits for the inner task")
            inner.trySucceed(5)
            c.expect(try unwrapped.settle()?.get() == 5)
            let failing = backend.runTask(on: backend.makeSerialExecutor(label: "c9.5"), token: .none) { _ in
                backend.failed(TestError(code: 1), as: Int.self)
            }
            c.expectEqual(failing.settle()?.testError, TestError(code: 1))
            let cancellation = backend.makeCancellationSource()
            cancellation.cancel()
            let bodies = Counter()
            let never = backend.runTask(token: cancellation.token) { _ -> any AsyncTask<Int> in
                bodies.increment()
                return backend.succeeded(1)
            }
            c.expectEqual(never.settle()?.isCancelled, true)
            c.expectEqual(bodies.count, 0)
        }

        static func runAsyncValue(_ c: RuleContext) throws {
            let backend = c.backend
            let executor = backend.defaultExecutor
            let task = backend.runAsync { () async throws -> Bool in
                await Task.yield()
                return executor.isCurrent
            }
            c.expect(try task.settle()?.get() == true)
            c.expect(backend.runAsync { () async throws -> Int in throw TestError(code: 2) }.settle()?.testError == TestError(code: 2))
            c.expect(backend.runAsync { () async throws -> Int in throw CancellationError() }.settle()?.isCancelled == true)
        }

        static func runPicksAsyncOnlyWhenAwaiting(_ c: RuleContext) async throws {
            let backend = c.backend
            let sync = backend.run { withUnsafeCurrentTask { $0 == nil } }
            let async = backend.run { () async throws -> Bool in
                await Task.yield()
                return withUnsafeCurrentTask { $0 != nil }
            }
            c.expect(try await sync.value, "a closure without await is a synchronous body: no Swift task")
            c.expect(try await async.value, "a closure with await runs as a Swift task")
        }

        static func runAsyncCancellation(_ c: RuleContext) throws {
            let backend = c.backend
            let early = backend.makeCancellationSource()
            early.cancel()
            let bodies = Counter()
            let never = backend.runAsync(token: early.token) { bodies.increment() }
            c.expect(never.completion?.isCancelled == true, "cancelled at once, before starting")

            let cancellation = backend.makeCancellationSource()
            let entered = backend.makeSource(of: Void.self)
            let sleeping = backend.runAsync(token: cancellation.token) { () async throws -> Int in
                bodies.increment()
                entered.trySucceed()
                try await Task.sleep(for: .seconds(60))
                return 1
            }
            c.expect(entered.task.settle() != nil)
            cancellation.cancel()
            c.expect(sleeping.settle()?.isCancelled == true, "token cancel cancels the Swift task; its CancellationError is .cancelled")
            c.expectEqual(bodies.count, 1)
        }
    }

    /// C9.7 Ready-made executors.
    enum C9Executor {
        static let checks: [RuleCheck] = [
            RuleCheck("C9.7", "isCurrent is true inside an executor's own jobs and false elsewhere", isCurrent),
        ]

        static func isCurrent(_ c: RuleContext) throws {
            let backend = c.backend
            let serial = backend.makeSerialExecutor(label: "c9.7")
            let other = backend.makeSerialExecutor(label: "c9.7-other")
            for executor in [backend.defaultExecutor, serial] {
                c.expect(!executor.isCurrent, "the test thread is on no executor")
                let inside = backend.run(on: executor) { executor.isCurrent && !other.isCurrent }
                c.expect(try inside.settle()?.get() == true)
            }
            let onSerial = backend.run(on: serial) { _ in serial.isCurrent }
            let afterward = onSerial.map(on: backend.defaultExecutor) { _ in serial.isCurrent }
            c.expect(try onSerial.settle()?.get() == true)
            c.expect(try afterward.settle()?.get() == false, "not on the serial executor once its job is over")
            c.expect(!backend.inlineExecutor.isCurrent)
        }
    }

    /// C9.9 Serial executors as actor executors.
    enum C9ActorExecutor {
        static let checks: [RuleCheck] = [
            RuleCheck("C9.9", "an actor pinned to a serial executor runs on it, and its continuations can assumeIsolated", async: pinnedActor),
        ]

        static func pinnedActor(_ c: RuleContext) async throws {
            let backend = c.backend
            let ui = try c.require(backend.makeActorExecutor(label: "ui"))
            let screen = Screen(ui: ui)
            c.expect(await screen.show("first"))

            let loaded = backend.run { "loaded" }
            let shown = loaded.continueWith(on: ui) { outcome in
                try screen.assumeIsolated { screen in
                    screen.title = try outcome.get()
                    return screen.title
                }
            }
            c.expect(try await shown.value == "loaded")
            c.expect(await screen.title == "loaded")
        }
    }
}
