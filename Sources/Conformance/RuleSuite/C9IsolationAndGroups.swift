import TaskAPI

/// An actor pinned to an actor executor of the backend (C9.9, C9.10): continuations registered on
/// it take it as an isolated parameter and note, in its own state, that they entered it and
/// whether they ran as a job of its executor.
actor Ledger: PinnedActor {
    nonisolated let executor: any ActorExecutor
    private(set) var entries: [String] = []

    init(executor: any ActorExecutor) {
        self.executor = executor
    }

    /// Notes the entry `name`, marked if it did not run as a job of the actor's executor.
    func enter(_ name: String) {
        entries.append(executor.isCurrent ? name : "\(name) (off the executor)")
    }
}

extension RuleSuite {
    /// C9.10 Isolated continuations.
    enum C9Isolation {
        /// The actor pinned to a new actor executor of the backend (the check stops if it has none: C9.9's finding).
        private static func ledger(_ c: RuleContext) throws -> Ledger {
            Ledger(
                executor: try c.require(
                    c.backend.makeActorExecutor(label: "c9.10"), "the backend makes actor executors (C9.9)",
                    call: "backend.makeActorExecutor(label: \"c9.10\")", expected: "an ActorExecutor"))
        }

        static func pinnedForms(_ c: RuleContext) throws {
            let backend = c.backend
            let ledger = try ledger(c)
            let gate = backend.makeSource(of: Int.self)
            let failing = backend.makeSource(of: Int.self)
            let (a, f, none) = (gate.task, failing.task, CancellationToken.none)
            let done = backend.makeSource(of: Void.self)
            var made: [any AsyncTask<Int>] = [
                a.continueWith(on: ledger) { ledger, outcome in
                    ledger.enter("continueWith"); return try outcome.get()
                },
                a.continueWithTask(on: ledger, token: none) { ledger, _ in
                    ledger.enter("continueWithTask"); return backend.succeeded(2)
                },
                a.map(on: ledger) { ledger, value in
                    ledger.enter("map"); return value
                },
                a.flatMap(on: ledger, token: none) { ledger, value in
                    ledger.enter("flatMap"); return backend.succeeded(value)
                },
                a.then(on: ledger) { ledger, value in
                    ledger.enter("then"); return value
                },
                a.finally(on: ledger) { ledger, _ in ledger.enter("finally") },
                a.finallyTask(on: ledger) { ledger, _ in
                    ledger.enter("finallyTask"); return backend.succeeded(())
                }
            ]
            a.whenComplete(on: ledger) { ledger, _ in ledger.enter("whenComplete") }
            made += [
                f.recover(on: ledger) { ledger, _ in
                    ledger.enter("recover"); return 1
                },
                f.recoverTask(on: ledger, token: none) { ledger, _ in
                    ledger.enter("recoverTask"); return backend.succeeded(1)
                },
                f.catch(on: ledger) { ledger, _ in
                    ledger.enter("catch"); return 1
                }
            ]
            f.whenComplete(on: ledger) { ledger, _ in
                ledger.enter("last"); done.trySucceed()
            }
            gate.trySucceed(1)
            failing.tryFail(TestError(code: 1))
            let call = "task.<form>(on: ledger) { ledger, input in ledger.enter(...) } for each form, then the tasks completed"
            for task in made { c.expectCompletes(task, "a continuation on a pinned actor runs", call: call) }
            c.expectCompletes(done.task, "whenComplete(on: ledger) runs", call: call)
            let expected = [
                "continueWith", "continueWithTask", "map", "flatMap", "then", "finally", "finallyTask", "whenComplete",
                "recover", "recoverTask", "catch", "last"
            ]
            c.expectEqual(
                entriesOf(ledger, backend: backend), expected,
                "each body ran isolated to the actor, as a job of its executor, in registration order (C2.4)",
                call: call)
        }

        /// The ledger's entries, read in a job of the actor's executor (isolated to it there).
        private static func entriesOf(_ ledger: Ledger, backend: any TaskBackend) -> [String] {
            backend.succeeded(()).continueWith(on: ledger) { ledger, _ in ledger.entries }.settle()?.value ?? []
        }

        static func pinnedToken(_ c: RuleContext) throws {
            let backend = c.backend
            let ledger = try ledger(c)
            let cancelled = backend.makeCancellationSource()
            cancelled.cancel()
            let gate = backend.makeSource(of: Int.self)
            let mapped = gate.task.map(on: ledger, token: cancelled.token) { ledger, value in
                ledger.enter("map"); return value
            }
            let call = "pending.map(on: ledger, token: cancelled) { ... }"
            c.expectCompletedAtOnce(
                mapped.completion, .cancelled, "a pinned form whose token is cancelled completes cancelled at once (C4.3)",
                call: call)
            gate.trySucceed(1)
            c.expectEqual(entriesOf(ledger, backend: backend), [], "its body never runs", call: call + ", then the antecedent completed")
        }

        static func mainExecutorOffMain(_ c: RuleContext) throws {
            let backend = c.backend
            let main = backend.mainExecutor
            c.expectEqual(
                main.isCurrent, false, "the main executor is not current on a thread of the check's (not its job)",
                call: "backend.mainExecutor.isCurrent")
            c.expectEqual(main.executor.isCurrent, false, "nor is it as a plain executor", call: "backend.mainExecutor.executor.isCurrent")
            c.expectEqual(
                MainExecutor.mainActor.isCurrent, false, "nor the main actor's executor", call: "MainExecutor.mainActor.isCurrent")
            let cancelled = backend.makeCancellationSource()
            cancelled.cancel()
            let bodies = Counter()
            let gate = backend.makeSource(of: Int.self)
            let mapped = gate.task.map(on: main, token: cancelled.token) { value in
                bodies.increment(); return value
            }
            let ran = backend.run(on: main, token: cancelled.token) { bodies.increment() }
            c.expectCompletedAtOnce(
                mapped.completion, .cancelled,
                "a continuation on the main executor whose token is cancelled completes cancelled at once, with no main thread (C4.3)",
                call: "pending.map(on: backend.mainExecutor, token: cancelled) { ... }")
            c.expectCompletedAtOnce(
                ran.completion.map { $0.mapped { _ in 0 } }, .cancelled,
                "run on the main executor with a cancelled token completes cancelled at once",
                call: "backend.run(on: backend.mainExecutor, token: cancelled) { ... }")
            gate.trySucceed(1)
            c.expectEqual(
                bodies.count, 0, "no body with a cancelled token runs",
                call: "map(on: main, token: cancelled), run(on: main, token: cancelled)")
        }
    }

    /// C9.11 Work groups.
    enum C9WorkGroup {
        static func emptyGroup(_ c: RuleContext) throws {
            let group = WorkGroup(backend: c.backend)
            c.expectCompletedAtOnce(
                group.idle().completion.map { $0.mapped { _ in 0 } }, .success(0),
                "idle() of an empty group is a task already succeeded",
                call: "WorkGroup(backend:).idle().completion")
            c.expectEqual(group.pendingCount, 0, "nothing is pending in an empty group", call: "group.pendingCount")
            group.wait()
            c.expectEqual(
                group.wait(timeout: .zero), true, "wait(timeout:) of an idle group returns true", call: "group.wait(timeout: .zero)")
        }

        static func lastJoined(_ c: RuleContext) throws {
            let backend = c.backend
            let group = WorkGroup(backend: backend)
            let first = backend.makeSource(of: Int.self)
            let second = backend.makeSource(of: String.self)
            let third = backend.makeSource(of: Int.self)
            group.join(first.task)
            group.join(second.task)
            c.expectEqual(
                group.pendingCount, 2, "a joined task counts until it completes", call: "group.join(a); group.join(b); group.pendingCount")
            let idle = group.idle()
            let call = "group.join(a); group.join(b); let idle = group.idle()"
            first.tryFail(TestError(code: 1))
            c.expectPending(idle, "idle() waits for every joined task, a failed one counting as done", call: call + "; a failed")
            group.join(third.task)
            second.tryCancel()
            c.expectPending(idle, "a task joined while idle() is pending delays it", call: call + "; a failed; group.join(c); b cancelled")
            c.expectEqual(
                group.wait(timeout: .milliseconds(10)), false, "wait(timeout:) returns false while a joined task is pending",
                call: call + "; group.wait(timeout: .milliseconds(10)) with c pending")
            third.trySucceed(3)
            c.expectOutcome(idle, .success(()), "idle() succeeds once the last joined task completed", call: call + "; ...; c succeeded")
            c.expectEqual(group.pendingCount, 0, "no task is pending once idle", call: "group.pendingCount")
        }

        /// Issue 28, exact counts: the group's count-out continuation, registered at the join,
        /// runs before a continuation registered on the same task after it (C2.4), so from that
        /// later continuation the count is known exactly (the joined tasks not completed yet), and
        /// when the last one completes, idle() has already succeeded: never later.
        static func exactCounts(_ c: RuleContext) throws {
            let backend = c.backend
            let group = WorkGroup(backend: backend)
            let sources = (0..<4).map { _ in backend.makeSource(of: Int.self) }
            let seen = Recorder<(index: Int, pending: Int, idle: Bool)>()
            let idle = PlainLocked<(any AsyncTask<Void>)?>(nil)
            for (index, source) in sources.enumerated() {
                group.join(source.task)
                c.expectEqual(
                    group.pendingCount, index + 1, "every joined task still pending counts",
                    call: "group.join(t\(index)); group.pendingCount")
                source.task.whenComplete(on: backend.inlineExecutor) { _ in
                    let idleTask = idle.withLock { $0 }
                    seen.append((index, group.pendingCount, idleTask?.status == .completed))
                }
            }
            idle.withLock { $0 = group.idle() }
            let call = "4 tasks joined, each with a continuation on the inline executor registered after the join; group.idle()"
            for (index, source) in sources.enumerated().reversed() { source.trySucceed(index) }
            c.expect(
                eventually { seen.all.count == sources.count }, "every continuation runs", call: call + "; every task completed",
                expected: "4 runs", observed: "\(seen.all.count)")
            let byIndex = seen.all.sorted { $0.index > $1.index }
            c.expectEqual(
                byIndex.map(\.pending), [3, 2, 1, 0], "pendingCount, read after each task's count-out, is exact",
                call: call + "; t3, t2, t1, t0 completed in turn; pendingCount inside each task's later continuation")
            c.expectEqual(
                byIndex.map(\.idle), [false, false, false, true], "idle() succeeds when the last joined task completes, no later",
                call: call + "; idle().status inside each task's later continuation")
        }

        static func laterJoins(_ c: RuleContext) throws {
            let backend = c.backend
            let group = WorkGroup(backend: backend)
            let first = backend.makeSource(of: Int.self)
            group.join(first.task)
            let earlier = group.idle()
            first.trySucceed(1)
            c.expectOutcome(
                earlier, .success(()), "idle() succeeds when its joined task completes", call: "group.join(a); group.idle(); a succeeded")
            let later = backend.makeSource(of: Int.self)
            group.join(later.task)
            let next = group.idle()
            let call = "...; then group.join(b); let next = group.idle()"
            c.expectPending(next, "a task joined after an idle() succeeded makes the next one wait", call: call)
            let waiter = backend.run { group.wait(timeout: patience) }
            later.trySucceed(2)
            c.expectOutcome(next, .success(()), "the next idle() succeeds once that task completed", call: call + "; b succeeded")
            c.expectOutcome(
                waiter, .success(true), "wait(timeout:) returns true once the group went idle",
                call: call + "; group.wait(timeout:) on another thread")
        }
    }
}
