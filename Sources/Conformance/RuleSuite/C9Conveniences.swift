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
            c.expectOutcome(forty, .success(40), "run takes a body with no argument", call: "backend.run { 40 }")
            c.expectOutcome(
                onUser, .success("x"), "run(on:) defaults the token and runs on the executor", call: "backend.run(on: user) { _ in ... }")
            c.expectOutcome(
                continued, .success(41), "continueWith(on:) defaults the token and runs on the executor",
                call: "forty.continueWith(on: user) { ... }")
            c.expectOutcome(
                chained, .success(42), "continueWithTask(on:) defaults the token and runs on the executor",
                call: "forty.continueWithTask(on: user) { ... }")
            c.expectOutcome(plain, .success(43), "continueWith defaults executor and token", call: "forty.continueWith { ... }")
            c.expectOutcome(plainTask, .success(44), "continueWithTask defaults executor and token", call: "forty.continueWithTask { ... }")
            c.expectEqual(
                user.ran.count, 3, "the forms given the user's executor run on it (jobs it ran)",
                call: "run(on: user), continueWith(on: user), continueWithTask(on: user)")
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
            c.expectOutcome(
                run, .cancelled, "run(token:) with a body of no argument honours a token cancelled before it starts",
                call: "backend.run(token: cancelled) { ... }")
            c.expectOutcome(
                continued, .cancelled,
                "a continuation whose token is cancelled completes cancelled at once, not when its antecedent does (C4.3)",
                call: "pending.continueWith(on: serial, token: cancelled) { ... }")
            gate.trySucceed(1)
            c.expectEqual(
                ran.count, 0, "no body with a cancelled token runs", call: "run(token: cancelled), continueWith(token: cancelled)")
        }

        static func typedWhenAll(_ c: RuleContext) throws {
            let backend = c.backend
            let number = backend.makeSource(of: Int.self)
            let text = backend.makeSource(of: String.self)
            let flag = backend.makeSource(of: Bool.self)
            let joined = backend.whenAll(number.task, text.task, flag.task)
            flag.trySucceed(true)
            text.trySucceed("s")
            let call = "backend.whenAll(number.task, text.task, flag.task)"
            c.expectPending(joined, "whenAll of typed tasks waits for every input", call: call + ", number pending")
            number.trySucceed(7)
            let (n, s, f) = try c.requireValue(joined, "whenAll of typed tasks completes once every input did", call: call)
            c.expect(
                n == 7 && s == "s" && f, "whenAll of typed tasks gives the values as a tuple, in input order", call: call,
                expected: "(7, \"s\", true)", observed: "(\(n), \"\(s)\", \(f))")

            for failure in [Completion<String>.failure(TestError(code: 1)), .cancelled] {
                let pending = backend.makeSource(of: Int.self)
                let failing = backend.makeSource(of: String.self)
                let all = backend.whenAll(pending.task, failing.task)
                failing.tryComplete(failure)
                let call = "backend.whenAll(pending.task, failing.task), failing completed \(RuleContext.describe(failure))"
                let outcome = try c.requireOutcome(all, "whenAll of typed tasks fails fast, not waiting for a pending input", call: call)
                c.expectEqual(
                    RuleContext.describe(outcome), RuleContext.describe(failure), "whenAll of typed tasks fails with the first failure",
                    call: call)
                c.expectEqual(pending.task.status, .pending, "whenAll leaves its inputs alone", call: call + "; pending.task.status")
            }
        }

        static func statementsAndInference(_ c: RuleContext) throws {
            let backend = c.backend
            let task = backend.run { 1 }
            task.wait()
            c.expectEqual(task.status, .completed, "wait() as a statement waits", call: "backend.run { 1 }.wait()")
            c.expectNoThrow("get() as a statement", call: "try backend.succeeded(2).get()") { try backend.succeeded(2).get() }
            let failed: any AsyncTask<Int> = backend.failed(TestError(code: 3))
            let cancelled: any AsyncTask<String> = backend.cancelled()
            c.expectCompletedAtOnce(
                failed.completion, .failure(TestError(code: 3)), "failed takes its type from the context",
                call: "let failed: any AsyncTask<Int> = backend.failed(TestError(code: 3))")
            c.expectCompletedAtOnce(
                cancelled.completion, .cancelled, "cancelled takes its type from the context",
                call: "let cancelled: any AsyncTask<String> = backend.cancelled()")
            let pair = try? backend.whenAll(backend.succeeded(1), backend.succeeded("x")).get()
            c.expect(
                pair.map { $0 == 1 && $1 == "x" } == true, "get() on a typed whenAll gives the tuple",
                call: "try backend.whenAll(backend.succeeded(1), backend.succeeded(\"x\")).get()",
                expected: "(1, \"x\")", observed: pair.map { "(\($0), \"\($1)\")" } ?? "an error")
        }
    }

    /// C9.2 Task factories.
    enum C9Factory {
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
            c.expectNoThrow("a prepared task starts once", call: "try factory.prepare { ... }.start()") { try prepared.start() }
            let calls = [
                "factory.run { user.isCurrent }", "factory.run { token in ... }", "factory.run { _ in backend.succeeded(...) }",
                "factory.continueWith(ran) { ... }", "factory.continueWithTask(ran) { ... }", "factory.prepare { ... }.start()"
            ]
            for (task, call) in zip([ran, withToken, unwrapped, continued, chained, prepared.task], calls) {
                c.expectOutcome(
                    task, .success(true), "a factory's executor applies to every task it vends", call: call + ", factory.executor = user")
            }
            c.expectEqual(user.ran.count, 6, "the factory's executor ran one job per task", call: calls.joined(separator: "; "))

            let cancellation = backend.makeCancellationSource()
            cancellation.cancel()
            let cancelledFactory = factory.with(token: cancellation.token)
            let bodies = Counter()
            let never = cancelledFactory.run { bodies.increment() }
            let neverContinued = cancelledFactory.continueWith(backend.makeSource(of: Int.self).task) { _ in bodies.increment() }
            c.expectOutcome(
                never, .cancelled, "a factory's token applies to the tasks it runs", call: "factory.with(token: cancelled).run { ... }")
            c.expectOutcome(
                neverContinued, .cancelled, "a factory's token applies to its continuations",
                call: "factory.with(token: cancelled).continueWith(pending) { ... }")
            c.expectEqual(
                bodies.count, 0, "no body with the factory's cancelled token runs",
                call: "factory.with(token: cancelled).run, .continueWith")
            c.expectOutcome(
                cancelledFactory.with(token: .none).run { 1 }, .success(1), "with(token:) replaces the token",
                call: "factory.with(token: cancelled).with(token: .none).run { 1 }")
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
            c.expectOutcome(
                onFirst, .success(true), "a copy's change leaves the original factory alone",
                call: "original.run { first.isCurrent }, a copy's executor changed to second")
            c.expectOutcome(onSecond, .success(true), "the changed copy uses its executor", call: "changed.run { second.isCurrent }")
            c.expectOutcome(
                viaWith, .success(true), "with(executor:) makes a factory with that executor",
                call: "original.with(executor: second).run { second.isCurrent }")
            c.expect(
                original.executor === first, "the original factory keeps its executor", call: "original.executor after a copy changed",
                expected: "the first executor", observed: "another executor")
        }
    }

    /// C9.3 Prepared tasks.
    enum C9PreparedTask {
        static func startsOnce(_ c: RuleContext) throws {
            let backend = c.backend
            let user = UserExecutor()
            let bodies = Counter()
            let prepared = backend.prepare { () -> Bool in
                bodies.increment()
                return user.isCurrent
            }
            let early = prepared.task.map { !$0 }
            c.expectPending(prepared.task, "a prepared task does not start before start()", call: "backend.prepare { ... }")
            c.expectEqual(
                prepared.task.status, .pending, "a prepared task is pending until started", call: "backend.prepare { ... }.task.status")
            c.expectEqual(
                prepared.isStarted, false, "a prepared task is not started until start()", call: "backend.prepare { ... }.isStarted")
            c.expectNoThrow("the first start() succeeds", call: "try prepared.start(on: user)") { try prepared.start(on: user) }
            c.expectOutcome(
                prepared.task, .success(true), "a prepared task runs on the executor chosen at start", call: "try prepared.start(on: user)")
            c.expectOutcome(
                early, .success(false), "a continuation registered before start runs", call: "prepared.task.map { !$0 }, then start")
            c.expectThrows(
                StartError.alreadyStarted, "a second start() throws alreadyStarted", call: "try prepared.start() after start(on: user)"
            ) {
                try prepared.start()
            }
            c.expectEqual(
                prepared.tryStart(), false, "tryStart() after a start returns false", call: "prepared.tryStart() after start(on: user)")
            c.expectEqual(prepared.isStarted, true, "a started task says so", call: "prepared.isStarted after start(on: user)")
            c.expectEqual(bodies.count, 1, "the body runs once", call: "start(on: user), start(), tryStart()")
        }

        static func racingStarts(_ c: RuleContext) throws {
            let backend = c.backend
            for _ in 0..<50 {
                let bodies = Counter()
                let winners = Counter()
                let prepared = backend.prepare { bodies.increment() }
                race(4) { _ in if prepared.tryStart() { winners.increment() } }
                let call = "prepared.tryStart() from 4 threads at once"
                c.expectOutcome(prepared.task, .success(1), "the started body runs once and gives the task its value", call: call)
                c.expectEqual(winners.count, 1, "exactly one racing start returns true", call: call)
                c.expectEqual(bodies.count, 1, "the body runs once", call: call)
            }
        }

        static func cancelBeforeStart(_ c: RuleContext) throws {
            let backend = c.backend
            let bodies = Counter()
            let prepared = backend.prepare { bodies.increment() }
            prepared.cancel()
            c.expectCompletedAtOnce(
                prepared.task.completion, .cancelled, "a prepared task cancelled before start completes cancelled at once",
                call: "backend.prepare { ... }.cancel()")
            c.expectNoThrow("start() after cancel() still succeeds once", call: "try prepared.start() after cancel()") {
                try prepared.start()
            }
            c.expectThrows(StartError.alreadyStarted, "a second start() throws alreadyStarted", call: "try prepared.start(), twice") {
                try prepared.start()
            }

            let source = backend.makeCancellationSource()
            let viaToken = backend.prepare(token: source.token) { bodies.increment() }
            source.cancel()
            let call = "backend.prepare(token:) { ... }, then the token cancelled"
            c.expectCompletedAtOnce(
                viaToken.task.completion, .cancelled,
                "a prepared task whose token is cancelled before start completes cancelled at once",
                call: call)
            c.expectEqual(viaToken.tryStart(), true, "the first tryStart() returns true even then", call: call + ", then tryStart()")
            c.expectOutcome(viaToken.task, .cancelled, "it stays cancelled", call: call + ", then tryStart()")
            c.expectEqual(bodies.count, 0, "the body of a prepared task cancelled before start never runs", call: call)
        }

        static func droppedBeforeStart(_ c: RuleContext) throws {
            let backend = c.backend
            let bodies = Counter()
            var prepared: PreparedTask<Int>? = backend.prepare { bodies.increment() }
            let task = prepared?.task
            let continued = task?.map { $0 + 1 }
            prepared = nil
            let call = "backend.prepare { ... } dropped before start"
            c.expectCompletedAtOnce(task?.completion, .cancelled, "a prepared task dropped before start completes cancelled", call: call)
            c.expectOutcome(
                of: continued.flatMap { c.settle($0, call: call + "; task.map { $0 + 1 }") }, .cancelled,
                "its continuations see the cancellation", call: call + "; task.map { $0 + 1 }")
            c.expectEqual(bodies.count, 0, "the body of a dropped prepared task never runs", call: call)
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
            let call = "prepared.start(), then prepared.cancel() while the body runs"
            c.expectNoThrow("start() succeeds", call: "try prepared.start()") { try prepared.start() }
            c.expectCompletes(entered.task, "the started body runs", call: "try prepared.start()")
            prepared.cancel()
            c.expectEqual(prepared.task.status, .running, "a started body is not cut short", call: call + "; prepared.task.status")
            proceed.trySucceed()
            c.expectOutcome(prepared.task, .cancelled, "the body sees the cancellation through its token's checkpoint", call: call)
        }
    }

    /// C9.4 Retry.
    enum C9Retry {
        static func attempts(_ c: RuleContext) throws {
            let backend = c.backend
            let tries = Counter()
            let third = backend.retry(attempts: 5) { _ -> Int in
                let attempt = tries.increment()
                if attempt < 3 { throw TestError(code: attempt) }
                return attempt
            }
            c.expectOutcome(
                third, .success(3), "retry stops at the first success", call: "backend.retry(attempts: 5) { fails twice, then returns 3 }")
            c.expectEqual(
                tries.count, 3, "retry makes no attempt after a success", call: "backend.retry(attempts: 5) { fails twice, then returns 3 }"
            )

            let failures = Counter()
            let exhausted = backend.retryTask(attempts: 3) { _ in
                backend.failed(TestError(code: failures.increment()), as: Int.self)
            }
            let exhaustedCall = "backend.retryTask(attempts: 3) { _ in backend.failed(TestError(code: attempt)) }"
            c.expectOutcome(
                exhausted, .failure(TestError(code: 3)), "retry gives up after its attempts with the last attempt's error",
                call: exhaustedCall)
            c.expectEqual(failures.count, 3, "retry makes exactly `attempts` attempts", call: exhaustedCall)

            let declined = Counter()
            let stopped = backend.retry(attempts: 5, while: { attempt, error in (error as? TestError)?.code != 1 }) { _ -> Int in
                throw TestError(code: declined.increment())
            }
            let stoppedCall = "backend.retry(attempts: 5, while: { error is not TestError(code: 1) }) { throw TestError(code: attempt) }"
            c.expectOutcome(stopped, .failure(TestError(code: 1)), "retry stops when its predicate says no", call: stoppedCall)
            c.expectEqual(declined.count, 1, "no attempt after the predicate said no", call: stoppedCall)

            let cancelledAttempts = Counter()
            let cancelledAttempt = backend.retry(attempts: 5) { _ -> Int in
                cancelledAttempts.increment()
                throw CancellationError()
            }
            c.expectOutcome(
                cancelledAttempt, .cancelled, "a cancelled attempt cancels the retry",
                call: "backend.retry(attempts: 5) { throw CancellationError() }")
            c.expectEqual(
                cancelledAttempts.count, 1, "a cancelled attempt is not retried",
                call: "backend.retry(attempts: 5) { throw CancellationError() }")

            let once = Counter()
            let zeroCall = "backend.retry(attempts: 0) { throw TestError(code: attempt) }"
            c.expectOutcome(
                backend.retry(attempts: 0) { _ -> Int in throw TestError(code: once.increment()) }, .failure(TestError(code: 1)),
                "retry with no attempts makes one", call: zeroCall)
            c.expectEqual(once.count, 1, "attempts below 1 are taken as 1", call: zeroCall)
        }

        static func backoffAndToken(_ c: RuleContext) throws {
            let backend = c.backend
            let start = Uptime.now
            let tries = Counter()
            let slow = backend.retry(attempts: 3, backoff: .fixed(.milliseconds(30))) { _ -> Int in
                throw TestError(code: tries.increment())
            }
            let slowCall = "backend.retry(attempts: 3, backoff: .fixed(.milliseconds(30))) { throw TestError(code: attempt) }"
            c.expectOutcome(slow, .failure(TestError(code: 3)), "retry with a backoff ends with the last attempt's error", call: slowCall)
            let elapsed = Uptime.now - start
            c.expect(
                elapsed >= .milliseconds(60), "retry waits its backoff between attempts", call: slowCall,
                expected: "two waits of 30 ms: 60 ms or more", observed: "done after \(elapsed)")

            let cancellation = backend.makeCancellationSource()
            let failedOnce = backend.makeSource(of: Void.self)
            let waiting = backend.retry(attempts: 3, backoff: .fixed(.seconds(60)), token: cancellation.token) { _ -> Int in
                failedOnce.trySucceed()
                throw TestError(code: 1)
            }
            let waitCall = "backend.retry(attempts: 3, backoff: .fixed(.seconds(60)), token:) { throw }"
            c.expectCompletes(failedOnce.task, "the first attempt runs", call: waitCall)
            c.expectPending(waiting, "retry waits its backoff after a failed attempt", call: waitCall)
            cancellation.cancel()
            c.expectOutcome(
                waiting, .cancelled, "a token cancelled during the backoff cancels the retry at once, not after 60 s",
                call: waitCall + ", the token cancelled during the backoff")
        }
    }

    /// The delay before retry `retry` that `Backoff`'s documentation states: `initial`, times
    /// `multiplier` (1 at least) before each next retry, never more than `maximum`. Computed
    /// here from that sentence, to judge `Backoff.delay(beforeRetry:)` against.
    static func statedBackoff(initial: Duration, multiplier: Double, maximum: Duration, retry: Int) -> Duration {
        var delay = initial
        var step = 1
        while step < retry, delay < maximum {
            delay = delay * max(1, multiplier)
            step += 1
        }
        return min(delay, maximum)
    }
}

extension RuleSuite.C9Retry {
    /// Issue 28, parameter spaces: every kind of backoff (none, fixed, exponential) over factors
    /// from below 1 to 10, initial delays from zero to a second and caps below and above the
    /// growth, for the first 12 retries, against the growth the documentation states (an
    /// off-by-one in the exponent shows at the second retry); then an exponential retry's
    /// attempts, timed: before attempt n + 1 it waits at least `delay(beforeRetry: n)`.
    static func backoffRange(_ c: RuleContext) throws {
        let initials: [Duration] = [.zero, .microseconds(1), .milliseconds(3), .seconds(1)]
        let multipliers: [Double] = [0.5, 1, 1.5, 2, 3, 10]
        let maximums: [Duration] = [.zero, .milliseconds(10), .seconds(60)]
        var wrong: [String] = []
        for initial in initials {
            for retry in 1...12 {
                if Backoff.none.delay(beforeRetry: retry) != .zero { wrong.append(".none, retry \(retry)") }
                if Backoff.fixed(initial).delay(beforeRetry: retry) != initial { wrong.append(".fixed(\(initial)), retry \(retry)") }
            }
            for multiplier in multipliers {
                for maximum in maximums {
                    let backoff = Backoff.exponential(initial: initial, multiplier: multiplier, maximum: maximum)
                    for retry in 1...12 {
                        let stated = RuleSuite.statedBackoff(initial: initial, multiplier: multiplier, maximum: maximum, retry: retry)
                        let observed = backoff.delay(beforeRetry: retry)
                        if observed != stated {
                            wrong.append(
                                ".exponential(initial: \(initial), multiplier: \(multiplier), maximum: \(maximum)), "
                                    + "retry \(retry): \(observed), stated \(stated)")
                        }
                    }
                }
            }
        }
        c.expect(
            wrong.isEmpty, "a backoff's delay grows as stated: initial, times the multiplier before each next retry, capped",
            call: "Backoff.none/.fixed/.exponential(...).delay(beforeRetry: 1...12)", expected: "as stated",
            observed: "\(wrong.count) wrong, first: \(wrong.prefix(3).joined(separator: "; "))")
        let backend = c.backend
        let backoff = Backoff.exponential(initial: .milliseconds(4), multiplier: 3, maximum: .seconds(1))
        let starts = Recorder<Uptime>()
        let retried = backend.retry(attempts: 4, backoff: backoff) { _ -> Int in
            starts.append(.now)
            throw TestError(code: starts.all.count)
        }
        let call = "backend.retry(attempts: 4, backoff: .exponential(initial: .milliseconds(4), multiplier: 3)) { throw }"
        c.expectOutcome(retried, .failure(TestError(code: 4)), "the retry ends with the last attempt's error", call: call)
        let times = starts.all
        for retry in 1..<max(1, times.count) {
            let waited = times[retry] - times[retry - 1]
            c.expect(
                waited >= backoff.delay(beforeRetry: retry), "retry waits the backoff's delay before each next attempt", call: call,
                expected: "attempt \(retry + 1) at least \(backoff.delay(beforeRetry: retry)) after attempt \(retry)",
                observed: "after \(waited)")
        }
    }
}

extension RuleSuite {
    /// C9.5-C9.6 Run forms.
    enum C9Run {
        static func unwrappedRun(_ c: RuleContext) throws {
            let backend = c.backend
            let inner = backend.makeSource(of: Int.self)
            let unwrapped = backend.runTask { inner.task }
            c.expectPending(unwrapped, "runTask waits for the task its body returns", call: "backend.runTask { inner.task }, inner pending")
            inner.trySucceed(5)
            c.expectOutcome(
                unwrapped, .success(5), "runTask takes the outcome of the task its body returns",
                call: "backend.runTask { inner.task }, inner succeeded 5")
            let failing = backend.runTask(on: backend.makeSerialExecutor(label: "c9.5"), token: .none) { _ in
                backend.failed(TestError(code: 1), as: Int.self)
            }
            c.expectOutcome(
                failing, .failure(TestError(code: 1)), "run takes a returned task's failure",
                call: "backend.runTask(on: serial) { _ in backend.failed(TestError(code: 1)) }")
            let cancellation = backend.makeCancellationSource()
            cancellation.cancel()
            let bodies = Counter()
            let never = backend.runTask(token: cancellation.token) { _ -> any AsyncTask<Int> in
                bodies.increment()
                return backend.succeeded(1)
            }
            c.expectOutcome(
                never, .cancelled, "run returning a task honours a token cancelled before it starts",
                call: "backend.run(token: cancelled) { _ in backend.succeeded(1) }")
            c.expectEqual(bodies.count, 0, "its body never runs", call: "backend.run(token: cancelled) { _ in backend.succeeded(1) }")
        }

        static func runAsyncValue(_ c: RuleContext) throws {
            let backend = c.backend
            let executor = backend.defaultExecutor
            let task = backend.runAsync { () async throws -> Bool in
                await Task.yield()
                return executor.isCurrent
            }
            c.expectOutcome(
                task, .success(true), "runAsync runs its body on the backend's default executor",
                call: "backend.runAsync { await Task.yield(); return backend.defaultExecutor.isCurrent }")
            c.expectOutcome(
                backend.runAsync { () async throws -> Int in throw TestError(code: 2) }, .failure(TestError(code: 2)),
                "an error thrown by an async body fails the task with it", call: "backend.runAsync { throw TestError(code: 2) }")
            c.expectOutcome(
                backend.runAsync { () async throws -> Int in throw CancellationError() }, .cancelled,
                "CancellationError thrown by an async body cancels the task", call: "backend.runAsync { throw CancellationError() }")
        }

        static func runPicksAsyncOnlyWhenAwaiting(_ c: RuleContext) async throws {
            let backend = c.backend
            let sync = backend.run { withUnsafeCurrentTask { $0 == nil } }
            let async = backend.run { () async throws -> Bool in
                await Task.yield()
                return withUnsafeCurrentTask { $0 != nil }
            }
            let noTask = try? await sync.value
            c.expectEqual(
                noTask, true, "a closure without await is a synchronous body: no Swift task",
                call: "backend.run { withUnsafeCurrentTask { $0 == nil } }, awaited")
            let inTask = try? await async.value
            c.expectEqual(
                inTask, true, "a closure with await runs as a Swift task",
                call: "backend.run { await Task.yield(); return withUnsafeCurrentTask { $0 != nil } }, awaited")
        }

        static func runAsyncCancellation(_ c: RuleContext) throws {
            let backend = c.backend
            let early = backend.makeCancellationSource()
            early.cancel()
            let bodies = Counter()
            let never = backend.runAsync(token: early.token) { bodies.increment() }
            c.expectCompletedAtOnce(
                never.completion, .cancelled, "runAsync with a token cancelled before it starts completes cancelled at once",
                call: "backend.runAsync(token: cancelled) { ... }.completion")

            let cancellation = backend.makeCancellationSource()
            let entered = backend.makeSource(of: Void.self)
            let sleeping = backend.runAsync(token: cancellation.token) { () async throws -> Int in
                bodies.increment()
                entered.trySucceed()
                try await Task.sleep(for: .seconds(60))
                return 1
            }
            let call = "backend.runAsync(token:) { try await Task.sleep(for: .seconds(60)) }, then the token cancelled"
            c.expectCompletes(entered.task, "the async body starts", call: call)
            cancellation.cancel()
            c.expectOutcome(
                sleeping, .cancelled, "cancelling the token cancels the Swift task, whose CancellationError completes the task cancelled",
                call: call)
            c.expectEqual(
                bodies.count, 1, "only the body whose token was not cancelled before it started ran",
                call: "runAsync(token: cancelled) and runAsync(token:) cancelled later")
        }
    }

    /// C9.7 Ready-made executors.
    enum C9Executor {
        static func isCurrent(_ c: RuleContext) throws {
            let backend = c.backend
            let serial = backend.makeSerialExecutor(label: "c9.7")
            let other = backend.makeSerialExecutor(label: "c9.7-other")
            for executor in [backend.defaultExecutor, serial] {
                let which = executorName(executor, in: backend)
                c.expectEqual(
                    executor.isCurrent, false, "isCurrent is false on a thread of no executor (the check's own)",
                    call: "backend.\(which == "default" ? "defaultExecutor" : "makeSerialExecutor(label:)").isCurrent")
                let seen = c.settle(
                    backend.run(on: executor) { (executor.isCurrent, other.isCurrent) },
                    call: "backend.run(on: executor) { executor.isCurrent }")?.value
                c.expectEqual(
                    seen?.0, true,
                    "isCurrent is true inside a job of the \(which) executor (TaskAPI's default says false: "
                        + "a backend's executors answer it themselves)", call: "backend.run(on: \(which)) { \(which).isCurrent }")
                c.expectEqual(
                    seen?.1, false, "another executor's isCurrent is false inside it",
                    call: "backend.run(on: \(which)) { otherSerial.isCurrent }")
            }
            let onSerial = backend.run(on: serial) { _ in serial.isCurrent }
            let afterward = onSerial.map(on: backend.defaultExecutor) { _ in serial.isCurrent }
            c.expectOutcome(
                onSerial, .success(true), "isCurrent is true inside a serial executor's job",
                call: "backend.run(on: serial) { serial.isCurrent }")
            c.expectOutcome(
                afterward, .success(false), "isCurrent is false once the serial executor's job is over",
                call: "onSerial.map(on: backend.defaultExecutor) { _ in serial.isCurrent }")
            c.expectEqual(
                backend.inlineExecutor.isCurrent, false, "the inline executor is not current outside inline work",
                call: "backend.inlineExecutor.isCurrent")
        }
    }

    /// C9.9 Serial executors as actor executors.
    enum C9ActorExecutor {
        static func pinnedActor(_ c: RuleContext) async throws {
            let backend = c.backend
            let ui = try c.require(
                backend.makeActorExecutor(label: "ui"),
                "the backend makes serial executors Swift actors can run on (C9.9)",
                call: "backend.makeActorExecutor(label: \"ui\")",
                expected: "an ActorExecutor (serial executors of the backend conform to ActorExecutor)")
            let screen = Screen(ui: ui)
            let shownFirst = await screen.show("first")
            c.expectEqual(
                shownFirst, true, "an actor pinned to the executor runs its methods as its jobs",
                call: "await screen.show(\"first\") on an actor whose unownedExecutor is the ui executor")

            let loaded = backend.run { "loaded" }
            let shown = loaded.continueWith(on: ui) { outcome in
                try screen.assumeIsolated { screen in
                    screen.title = try outcome.get()
                    return screen.title
                }
            }
            let title = try? await shown.value
            c.expectEqual(
                title, "loaded", "a continuation on the actor's executor may use it with assumeIsolated",
                call: "loaded.continueWith(on: ui) { screen.assumeIsolated { ... } }")
            let stored = await screen.title
            c.expectEqual(stored, "loaded", "what the continuation set is the actor's state", call: "await screen.title")
        }
    }
}
