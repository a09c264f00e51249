import Dispatch
import Foundation
import TaskAPI

extension RuleSuite {
    /// C4 Cancellation.
    enum C4Cancellation {
        static let checks: [RuleCheck] = [
            RuleCheck("C4.1", "cancel is idempotent, thread-safe, and stays requested", cancelIdempotent),
            RuleCheck("C4.1", "a second cancel() returns only after the first one's handlers ran; linked sources are then cancelled", secondCancelWaitsForHandlers),
            RuleCheck("C4.2", "handlers run once, in order, promptly if late; disposed ones never run and are released", handlers),
            RuleCheck("C4.3", "a body whose token is cancelled before it starts never runs", cancelledBeforeStart),
            RuleCheck("C4.4", "checkpoint throws CancellationError once requested", checkpoint),
            RuleCheck("C4.5", "cancellation racing completion gives one outcome; after completion it changes nothing", cancelRacingCompletion),
            RuleCheck("C4.6", "cancel(after:) cancels after the delay; linked sources follow any parent", delayedAndLinked),
            RuleCheck("C4.7", "a cancelled Swift Task stops awaiting at once and leaves the task alone", async: swiftTaskCancellation),
        ]

        static func cancelIdempotent(_ c: RuleContext) throws {
            let source = c.backend.makeCancellationSource()
            let token = source.token
            c.expect(!token.isCancellationRequested)
            c.expect(token.canBeCancelled)
            c.expect(!CancellationToken.none.canBeCancelled)
            let handlerRuns = Counter()
            _ = token.register { handlerRuns.increment() }
            race(8) { _ in source.cancel() }
            source.cancel()
            c.expect(source.isCancellationRequested)
            c.expect(token.isCancellationRequested)
            c.expectEqual(handlerRuns.count, 1)
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
            c.expect(entered.wait(timeout: .now() + 30) == .success, "the first cancel() never ran its handlers")
            // The first cancel() is inside the slow handler now; the second one races it.
            let second = Thread {
                parent.cancel()
                if child.isCancellationRequested { childCancelled.increment() }
                secondReturned.signal()
                secondDone.signal()
            }
            second.start()
            c.expect(secondDone.wait(timeout: .now() + 30) == .success, "the second cancel() never returned")
            c.expect(childCancelled.count == 1, "after a cancel() returns, a linked source is cancelled")
            c.expect(secondReturnedEarly.count == 0, "the second cancel() returned while the first was running handlers")
            c.expectEqual(innerCancelReturned.count, 1)
        }

        static func handlers(_ c: RuleContext) throws {
            let source = c.backend.makeCancellationSource()
            let order = Recorder<Int>()
            for index in 0..<10 { _ = source.token.register { order.append(index) } }
            weak var weakProbe: Probe?
            let disposed: any Disposable = {
                let probe = Probe()
                weakProbe = probe
                return source.token.register { _ = probe; order.append(-1) }
            }()
            disposed.dispose()
            c.expect(weakProbe == nil, "a disposed handler must be released")
            source.cancel()
            source.cancel()
            c.expectEqual(order.all, Array(0..<10))
            let late = Counter()
            _ = source.token.register { late.increment() }
            c.expect(late.count == 1, "a handler registered after cancel runs before register returns")
            _ = CancellationToken.none.register { late.increment() }
            c.expectEqual(late.count, 1)
        }

        static func cancelledBeforeStart(_ c: RuleContext) throws {
            let backend = c.backend
            let ran = Counter()
            let early = backend.makeCancellationSource()
            early.cancel()
            let run = backend.run(token: early.token) { _ in ran.increment() }
            c.expectEqual(run.settle()?.isCancelled, true)

            // A continuation completes cancelled as soon as its token is, not when its antecedent does.
            let antecedent = backend.makeSource(of: Int.self)
            let source = backend.makeCancellationSource()
            let continuations: [any AsyncTask<Int>] = [
                antecedent.task.map(token: source.token) { ran.increment(); return $0 },
                antecedent.task.continueWith(on: backend.inlineExecutor, token: source.token) { _ in ran.increment(); return 0 },
                antecedent.task.flatMap(token: source.token) { v -> any AsyncTask<Int> in ran.increment(); return backend.succeeded(v) },
            ]
            source.cancel()
            for task in continuations { c.expect(task.settle()?.isCancelled == true) }
            antecedent.trySucceed(1)
            let after = antecedent.task.map { $0 }
            c.expect(after.settle() != nil)
            c.expectEqual(ran.count, 0)

            // On a busy serial executor: queued behind a blocked job, cancelled, never starts.
            let serial = backend.makeSerialExecutor(label: "c4.3")
            let gate = backend.makeSource(of: Void.self)
            let blocker = backend.run(on: serial, token: .none) { _ in _ = gate.task.wait() }
            let queued = backend.makeCancellationSource()
            let waiting = backend.run(on: serial, token: queued.token) { _ in ran.increment() }
            queued.cancel()
            c.expectEqual(waiting.settle()?.isCancelled, true)
            gate.trySucceed()
            c.expect(blocker.settle() != nil)
            c.expect(backend.run(on: serial, token: .none) { _ in }.settle() != nil)
            c.expectEqual(ran.count, 0)
        }

        static func checkpoint(_ c: RuleContext) throws {
            let source = c.backend.makeCancellationSource()
            c.expectNoThrow { try source.token.checkpoint() }
            source.cancel()
            c.expectThrows(CancellationError.self) { try source.token.checkpoint() }
            c.expectNoThrow { try CancellationToken.none.checkpoint() }
        }

        static func cancelRacingCompletion(_ c: RuleContext) throws {
            let backend = c.backend
            let bodies = Counter()
            var tasks: [any AsyncTask<Int>] = []
            for _ in 0..<300 {
                let source = backend.makeCancellationSource()
                tasks.append(backend.run(token: source.token) { _ in bodies.increment(); return 1 })
                source.cancel()
            }
            let outcomes = backend.whenAllSettled(tasks)
            let all = try c.require(try outcomes.settle()?.get())
            let successes = all.filter(\.isSuccess).count
            let cancels = all.filter(\.isCancelled).count
            c.expectEqual(successes + cancels, all.count)
            c.expect(successes == bodies.count, "a body that ran must give the task its outcome")

            let done = backend.makeCancellationSource()
            let finished = backend.run(token: done.token) { _ in 5 }
            c.expect(try finished.settle()?.get() == 5)
            done.cancel()
            c.expectEqual(finished.completion?.value, 5)
        }

        static func delayedAndLinked(_ c: RuleContext) throws {
            let backend = c.backend
            let timed = backend.makeCancellationSource()
            let fired = backend.makeSource(of: Void.self)
            _ = timed.token.register { fired.trySucceed() }
            let start = ContinuousClock.now
            timed.cancel(after: .milliseconds(30))
            c.expect(fired.task.settle() != nil)
            c.expect(ContinuousClock.now - start >= .milliseconds(30))
            c.expect(timed.isCancellationRequested)

            let parentA = backend.makeCancellationSource()
            let parentB = backend.makeCancellationSource()
            let child = backend.makeCancellationSource(linkedTo: [parentA.token, parentB.token])
            c.expect(!child.isCancellationRequested)
            child.cancel()
            c.expect(!parentA.isCancellationRequested, "cancelling a child leaves its parents alone")
            let second = backend.makeCancellationSource(linkedTo: [parentA.token, parentB.token])
            parentB.cancel()
            c.expect(second.isCancellationRequested)
            c.expect(!parentA.isCancellationRequested)
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
                c.expectThrows(CancellationError.self) { _ = try outcome.get() }
                c.expect(task.status == .pending, "the awaited task is left alone")
                source.trySucceed(3)
                c.expect(try await task.value == 3)
            }
        }
    }

}