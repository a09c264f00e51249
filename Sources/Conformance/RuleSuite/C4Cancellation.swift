import Dispatch
import Foundation
import TaskAPI

extension RuleSuite {
    /// C4 Cancellation.
    enum C4Cancellation {
        static func cancelIdempotent(_ c: RuleContext) throws {
            let source = c.backend.makeCancellationSource()
            let token = source.token
            c.expectEqual(
                token.isCancellationRequested, false, "a new source is not cancelled",
                call: "backend.makeCancellationSource().token.isCancellationRequested")
            c.expectEqual(
                token.canBeCancelled, true, "a source's token can be cancelled",
                call: "backend.makeCancellationSource().token.canBeCancelled")
            c.expectEqual(
                CancellationToken.none.canBeCancelled, false, "the none token cannot be cancelled",
                call: "CancellationToken.none.canBeCancelled")
            let handlerRuns = Counter()
            _ = token.register { handlerRuns.increment() }
            race(8) { _ in source.cancel() }
            source.cancel()
            let call = "source.cancel() from 8 threads at once, then once more"
            c.expectEqual(
                source.isCancellationRequested, true, "cancellation stays requested", call: call + "; source.isCancellationRequested")
            c.expectEqual(
                token.isCancellationRequested, true, "the token sees the cancellation", call: call + "; token.isCancellationRequested")
            c.expectEqual(handlerRuns.count, 1, "a handler runs once however many cancel() calls race", call: call)
        }

        /// Every wait is bounded and the racing calls run on threads of their own: the test holds no
        /// thread of Swift's cooperative pool for long, and a source that deadlocks fails it instead
        /// of hanging the run.
        static func secondCancelWaitsForHandlers(_ c: RuleContext) throws {
            let backend = c.backend
            let parent = backend.makeCancellationSource()
            let entered = DispatchSemaphore(value: 0)
            let secondReturned = DispatchSemaphore(value: 0)
            let secondDone = DispatchSemaphore(value: 0)
            let secondReturnedEarly = Counter()
            let innerCancelReturned = Counter()
            let childCancelled = Counter()
            // A slow handler, registered before the link: the first cancel() runs it before it
            // reaches the handler that cancels the child.
            _ = parent.token.register {
                entered.signal()
                // From inside a handler, on the thread running them: returns at once (no deadlock).
                parent.cancel()
                innerCancelReturned.increment()
                // The second cancel() must not return while this handler runs. Give it 100 ms to
                // return wrongly; a correct source keeps it waiting, so the wait times out.
                if secondReturned.wait(timeout: .now() + .milliseconds(100)) == .success { secondReturnedEarly.increment() }
            }
            let child = backend.makeCancellationSource(linkedTo: [parent.token])
            let first = Thread { parent.cancel() }
            first.start()
            c.expect(
                entered.wait(timeout: .now() + 30) == .success, "the first cancel() runs its handlers", call: "parent.cancel() on a thread",
                expected: "the first handler entered", observed: "not entered after 30 s")
            // The first cancel() is inside the slow handler now; the second one races it.
            let second = Thread {
                parent.cancel()
                if child.isCancellationRequested { childCancelled.increment() }
                secondReturned.signal()
                secondDone.signal()
            }
            second.start()
            let call = "parent.cancel() on a second thread while the first one runs a slow handler"
            c.expect(
                secondDone.wait(timeout: .now() + 30) == .success, "the second cancel() returns once the first one's handlers ran",
                call: call, expected: "returned", observed: "still blocked after 30 s")
            c.expectEqual(
                childCancelled.count, 1, "after any cancel() returns, a source linked to it is cancelled",
                call: call + "; child.isCancellationRequested")
            c.expectEqual(secondReturnedEarly.count, 0, "the second cancel() does not return while the first one runs handlers", call: call)
            c.expectEqual(
                innerCancelReturned.count, 1, "a cancel() from inside a handler, on the thread running it, returns at once",
                call: "parent.cancel() inside parent's handler")
        }

        /// Issue 28: `child.cancel()` on one thread runs the child's handlers, among them the one
        /// that cancels `grandchild`, whose slow handler is running when `parent.cancel()` is
        /// called on another thread. The parent's call reaches the child only through its link,
        /// which must make it wait, as a second `child.cancel()` would, until the child's handlers
        /// (and so the grandchild's) ran. Every wait is bounded; the calls run on threads of their
        /// own.
        static func parentCancelWaitsForLinkedCancellation(_ c: RuleContext) throws {
            let backend = c.backend
            let parent = backend.makeCancellationSource()
            let child = backend.makeCancellationSource(linkedTo: [parent.token])
            let grandchild = backend.makeCancellationSource(linkedTo: [child.token])
            let entered = DispatchSemaphore(value: 0)
            let parentReturned = DispatchSemaphore(value: 0)
            let parentDone = DispatchSemaphore(value: 0)
            let returnedEarly = Counter()
            let handlerRuns = Counter()
            _ = grandchild.token.register {
                entered.signal()
                // Give the parent's cancel() 100 ms to return wrongly; a correct one keeps waiting.
                if parentReturned.wait(timeout: .now() + .milliseconds(100)) == .success { returnedEarly.increment() }
                handlerRuns.increment()
            }
            let first = Thread { child.cancel() }
            first.start()
            c.expect(
                entered.wait(timeout: .now() + 30) == .success, "the child's cancel() runs the grandchild's handler",
                call: "child.cancel() on a thread", expected: "the grandchild's handler entered", observed: "not entered after 30 s")
            let ranWhenReturned = Counter()
            let second = Thread {
                parent.cancel()
                if handlerRuns.count == 1 { ranWhenReturned.increment() }
                parentReturned.signal()
                parentDone.signal()
            }
            second.start()
            let call =
                "parent.cancel() on a second thread while child.cancel() runs the handler of grandchild, "
                + "linked to child, linked to parent"
            c.expect(
                parentDone.wait(timeout: .now() + 30) == .success, "the parent's cancel() returns once the linked sources' handlers ran",
                call: call, expected: "returned", observed: "still blocked after 30 s")
            c.expectEqual(
                returnedEarly.count, 0, "a parent's cancel() does not return while a linked source's handlers run", call: call)
            c.expectEqual(
                ranWhenReturned.count, 1, "after any cancel() returns, the handlers of the sources linked to it ran",
                call: call + "; the grandchild's handler")
        }

        /// Issue 28, cancel against start: once `cancel()` began running the token's handlers,
        /// cancellation is requested, so a body whose start comes after that must see it and
        /// never run (C4.3), even though the handler that cancels its task has not run yet. The
        /// first handler holds `cancel()` inside the handlers while the body's job, queued on a
        /// serial executor behind a job that waits for it, reaches its start. (A prepared task's
        /// token is a source linked to the one given to `prepare`, cancelled when its link handler
        /// runs, C4.1: its start in that window is not judged here.)
        static func startAfterHandlersBegan(_ c: RuleContext) throws {
            let backend = c.backend
            let serial = backend.makeSerialExecutor(label: "c4.3.handlers")
            let source = backend.makeCancellationSource()
            let handlersBegan = DispatchSemaphore(value: 0)
            let releaseHandler = DispatchSemaphore(value: 0)
            // Registered first: runs first, and holds the handlers until released.
            _ = source.token.register {
                handlersBegan.signal()
                _ = releaseHandler.wait(timeout: .now() + 30)
            }
            let releaseQueue = DispatchSemaphore(value: 0)
            let queueHeld = backend.run(on: serial, token: .none) { _ in _ = releaseQueue.wait(timeout: .now() + 30) }
            let bodyRuns = Counter()
            let run = backend.run(on: serial, token: source.token) { _ in bodyRuns.increment() }
            let canceller = Thread { source.cancel() }
            canceller.start()
            let call =
                "backend.run(on: serial, token:), queued behind a blocked job; "
                + "source.cancel() on a thread, its first handler held; then the queue released"
            guard
                c.expect(
                    handlersBegan.wait(timeout: .now() + 30) == .success, "cancel() runs the token's first handler", call: call,
                    expected: "the first handler entered", observed: "not entered after 30 s")
            else { return }
            releaseQueue.signal()
            // The serial executor runs the bodies' jobs after the blocked one: wait until it did.
            let after = backend.run(on: serial, token: .none) { _ in }
            _ = after.settle()
            c.expectEqual(bodyRuns.count, 0, "a body whose start comes after cancel() began running handlers never runs", call: call)
            releaseHandler.signal()
            c.expectOutcome(run, .cancelled, "the run completes cancelled", call: call)
            _ = queueHeld.settle()
        }

        /// Issue 28, parameter spaces: `cancel(after:)` deadlines drawn from the whole range
        /// (negative, zero, milliseconds, and beyond the timing slack), two on one source, in
        /// both orders. Each call requests cancellation once its own delay elapsed (C4.6): the
        /// earlier deadline cancels, whichever call set it; a later, longer call does not replace
        /// it (a deadline that fired only at the later one would be late by more than the slack,
        /// which makes the replacement visible). A `cancel()` before the deadlines cancels at
        /// once, and runs the handlers once.
        static func everyDeadlineStands(_ c: RuleContext) throws {
            let backend = c.backend
            let beyondSlack = c.timingSlack + .seconds(1)
            let pairs: [(first: Duration, second: Duration)] = [
                (.milliseconds(-5), beyondSlack), (.zero, beyondSlack), (.milliseconds(20), beyondSlack),
                (beyondSlack, .milliseconds(20)), (.milliseconds(1), .milliseconds(30))
            ]
            for (first, second) in pairs {
                let source = backend.makeCancellationSource()
                let runs = Counter()
                let fired = backend.makeSource(of: Void.self)
                _ = source.token.register {
                    runs.increment()
                    fired.trySucceed()
                }
                let start = Uptime.now
                source.cancel(after: first)
                source.cancel(after: second)
                let earlier = max(.zero, min(first, second))
                let call = "source.cancel(after: \(first)); source.cancel(after: \(second))"
                let outcome = fired.task.wait(timeout: earlier + c.timingSlack)
                let elapsed = Uptime.now - start
                c.expect(
                    outcome != nil, "the earlier deadline cancels: a later call does not replace it", call: call,
                    expected: "cancelled within \(earlier) and the timing slack (\(c.timingSlack))",
                    observed: "not cancelled after \(elapsed)")
                if outcome != nil {
                    c.expect(
                        elapsed >= earlier, "cancel(after:) cancels no earlier than its delay", call: call,
                        expected: "cancelled after \(earlier) or more", observed: "after \(elapsed)")
                }
                source.cancel()
                c.expectEqual(runs.count, 1, "the handlers run once, whichever deadline or call cancels", call: call + "; source.cancel()")
            }
            let cleared = backend.makeCancellationSource()
            let clearedRuns = Counter()
            _ = cleared.token.register { clearedRuns.increment() }
            cleared.cancel(after: beyondSlack)
            cleared.cancel()
            cleared.cancel(after: .milliseconds(1))
            let clearedCall = "source.cancel(after: \(beyondSlack)); source.cancel(); source.cancel(after: .milliseconds(1))"
            c.expectEqual(cleared.isCancellationRequested, true, "cancel() before the deadline cancels at once", call: clearedCall)
            _ = eventually(within: .milliseconds(20)) { clearedRuns.count > 1 }
            c.expectEqual(clearedRuns.count, 1, "a deadline after cancel() runs no handler again", call: clearedCall)
        }

        static func handlers(_ c: RuleContext) throws {
            let source = c.backend.makeCancellationSource()
            let order = Recorder<Int>()
            for index in 0..<10 { _ = source.token.register { order.append(index) } }
            weak var weakProbe: Probe?
            let disposed: any Disposable = {
                let probe = Probe()
                weakProbe = probe
                return source.token.register {
                    _ = probe; order.append(-1)
                }
            }()
            disposed.dispose()
            c.expect(
                weakProbe == nil, "a disposed handler is released", call: "token.register { probe }.dispose()",
                expected: "the handler's capture freed", observed: "still alive")
            source.cancel()
            source.cancel()
            c.expectEqual(
                order.all, Array(0..<10), "handlers run once each, in registration order, and never when disposed",
                call: "10 × token.register, one disposed, then source.cancel() twice")
            let late = Counter()
            _ = source.token.register { late.increment() }
            c.expectEqual(
                late.count, 1, "a handler registered after cancel() runs before register returns",
                call: "token.register { } after source.cancel()")
            _ = CancellationToken.none.register { late.increment() }
            c.expectEqual(late.count, 1, "a handler on the none token never runs", call: "CancellationToken.none.register { }")
        }

        static func cancelledBeforeStart(_ c: RuleContext) throws {
            let backend = c.backend
            let ran = Counter()
            let early = backend.makeCancellationSource()
            early.cancel()
            c.expectOutcome(
                backend.run(token: early.token) { _ in ran.increment() }, .cancelled,
                "a body whose token was cancelled before it starts completes cancelled", call: "backend.run(token: cancelled) { ... }")

            // A continuation completes cancelled as soon as its token is, not when its antecedent does.
            let antecedent = backend.makeSource(of: Int.self)
            let source = backend.makeCancellationSource()
            let continuations: [(any AsyncTask<Int>, String)] = [
                (
                    antecedent.task.map(token: source.token) {
                        ran.increment(); return $0
                    }, "map(token:)"
                ),
                (
                    antecedent.task.continueWith(on: backend.inlineExecutor, token: source.token) { _ in
                        ran.increment(); return 0
                    },
                    "continueWith(on: inline, token:)"
                ),
                (
                    antecedent.task.flatMap(token: source.token) { v -> any AsyncTask<Int> in
                        ran.increment(); return backend.succeeded(v)
                    },
                    "flatMap(token:)"
                )
            ]
            source.cancel()
            for (task, form) in continuations {
                c.expectOutcome(
                    task, .cancelled, "a continuation completes cancelled as soon as its token is, not when its antecedent does",
                    call: "pending.\(form) { ... }, then source.cancel()")
            }
            antecedent.trySucceed(1)
            c.expectCompletes(antecedent.task.map { $0 }, "a continuation without the token runs", call: "antecedent.task.map { $0 }")
            c.expectEqual(
                ran.count, 0, "no body of a cancelled continuation runs, even once its antecedent completes",
                call: "map, continueWith and flatMap with a cancelled token, antecedent completed after")

            // On a busy serial executor: queued behind a blocked job, cancelled, never starts.
            let serial = backend.makeSerialExecutor(label: "c4.3")
            let gate = backend.makeSource(of: Void.self)
            let blocker = backend.run(on: serial, token: .none) { _ in _ = gate.task.wait() }
            let queued = backend.makeCancellationSource()
            let waiting = backend.run(on: serial, token: queued.token) { _ in ran.increment() }
            queued.cancel()
            let call = "backend.run(on: serial, token:) queued behind a blocked job, then its token cancelled"
            c.expectOutcome(waiting, .cancelled, "a queued body whose token is cancelled completes cancelled", call: call)
            gate.trySucceed()
            c.expectCompletes(blocker, "the blocking job finishes once released", call: "backend.run(on: serial) { gate.task.wait() }")
            c.expectCompletes(
                backend.run(on: serial, token: .none) { _ in }, "the serial executor goes on", call: "backend.run(on: serial) { }")
            c.expectEqual(ran.count, 0, "a body whose token was cancelled before it started never runs", call: call)
        }

        static func checkpoint(_ c: RuleContext) throws {
            let source = c.backend.makeCancellationSource()
            c.expectNoThrow("checkpoint() returns while no cancellation is requested", call: "try token.checkpoint()") {
                try source.token.checkpoint()
            }
            source.cancel()
            c.expectThrows(
                CancellationError.self, "checkpoint() throws CancellationError once cancellation is requested",
                call: "try token.checkpoint() after source.cancel()"
            ) { try source.token.checkpoint() }
            c.expectNoThrow("the none token's checkpoint() never throws", call: "try CancellationToken.none.checkpoint()") {
                try CancellationToken.none.checkpoint()
            }
        }

        static func cancelRacingCompletion(_ c: RuleContext) throws {
            let backend = c.backend
            let bodies = Counter()
            var tasks: [any AsyncTask<Int>] = []
            for _ in 0..<300 {
                let source = backend.makeCancellationSource()
                tasks.append(
                    backend.run(token: source.token) { _ in
                        bodies.increment(); return 1
                    })
                source.cancel()
            }
            let call = "300 × backend.run(token:) { 1 }, each token cancelled right after"
            let all = try c.requireValue(backend.whenAllSettled(tasks), "every task completes", call: call)
            let successes = all.filter(\.isSuccess).count
            let cancels = all.filter(\.isCancelled).count
            c.expectEqual(successes + cancels, all.count, "each task either succeeds or is cancelled", call: call)
            c.expect(
                successes == bodies.count, "a body that ran gives the task its outcome", call: call,
                expected: "\(bodies.count) successes (the bodies that ran)", observed: "\(successes) successes, \(cancels) cancelled")

            let done = backend.makeCancellationSource()
            let finished = backend.run(token: done.token) { _ in 5 }
            c.expectOutcome(finished, .success(5), "the body's value", call: "backend.run(token:) { 5 }")
            done.cancel()
            c.expectCompletedAtOnce(
                finished.completion, .success(5), "cancelling after completion changes nothing",
                call: "source.cancel() after backend.run(token:) { 5 } completed")
        }

        static func delayedAndLinked(_ c: RuleContext) throws {
            let backend = c.backend
            let timed = backend.makeCancellationSource()
            let fired = backend.makeSource(of: Void.self)
            _ = timed.token.register { fired.trySucceed() }
            let start = Uptime.now
            timed.cancel(after: .milliseconds(30))
            c.expectCompletes(fired.task, "cancel(after:) cancels, running the handlers", call: "source.cancel(after: .milliseconds(30))")
            let elapsed = Uptime.now - start
            c.expect(
                elapsed >= .milliseconds(30), "cancel(after:) cancels no earlier than the delay",
                call: "source.cancel(after: .milliseconds(30))",
                expected: "handlers ran after 30 ms or more", observed: "after \(elapsed)")
            c.expectEqual(timed.isCancellationRequested, true, "the source is cancelled", call: "source.cancel(after: .milliseconds(30))")

            let parentA = backend.makeCancellationSource()
            let parentB = backend.makeCancellationSource()
            let child = backend.makeCancellationSource(linkedTo: [parentA.token, parentB.token])
            let link = "backend.makeCancellationSource(linkedTo: [parentA.token, parentB.token])"
            c.expectEqual(child.isCancellationRequested, false, "a source linked to uncancelled parents is not cancelled", call: link)
            child.cancel()
            c.expectEqual(parentA.isCancellationRequested, false, "cancelling a child leaves its parents alone", call: "child.cancel()")
            let second = backend.makeCancellationSource(linkedTo: [parentA.token, parentB.token])
            parentB.cancel()
            c.expectEqual(
                second.isCancellationRequested, true, "a linked source is cancelled when any parent is",
                call: link + ", then parentB.cancel()")
            c.expectEqual(
                parentA.isCancellationRequested, false, "one parent's cancellation leaves the other alone", call: "parentB.cancel()")
        }

        static func swiftTaskCancellation(_ c: RuleContext) async throws {
            let backend = c.backend
            for round in 0..<50 {
                let source = backend.makeSource(of: Int.self)
                let task = source.task
                let awaiting = backend.makeSource(of: Void.self)
                let waiter = Task.detached(executorPreference: AwaitExecutor.shared) {
                    awaiting.trySucceed()
                    return try await task.value
                }
                // Every other round, cancel once the waiter is about to await, so that both the
                // "cancelled before" and the "cancelled while suspended" paths are exercised.
                if round.isMultiple(of: 2) { _ = try await awaiting.task.value }
                waiter.cancel()
                let outcome = await waiter.result
                let call = "try await task.value in a Swift task, then that Swift task cancelled (round \(round))"
                c.expectThrows(CancellationError.self, "a cancelled Swift task stops awaiting with CancellationError", call: call) {
                    _ = try outcome.get()
                }
                c.expectEqual(task.status, .pending, "the awaited task is left alone", call: call + "; task.status")
                source.trySucceed(3)
                let value = try? await task.value
                c.expectEqual(value, 3, "the awaited task completes as its source says", call: "source.trySucceed(3); try await task.value")
            }
        }
    }

}
