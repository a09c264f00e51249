import Foundation
import Synchronization
import TaskAPI

extension RuleSuite {
    /// C2 Continuations.
    enum C2Continuations {
        static func manyContinuationsRunOnce(_ c: RuleContext) throws {
            let backend = c.backend
            let source = backend.makeSource(of: Int.self)
            let perThread = 250
            let runs = (0..<(4 * perThread)).map { _ in Counter() }
            let done = Counter()
            let allRan = backend.makeSource(of: Void.self)
            let executors = [backend.defaultExecutor, backend.inlineExecutor, backend.makeSerialExecutor(label: "c2.1")]
            let call = "source.task.whenComplete(on: default, inline or serial) 1000 times from 4 threads, trySucceed(42) midway"
            race(4) { thread in
                for index in 0..<perThread {
                    let id = thread * perThread + index
                    if thread == 0 && index == perThread / 2 { source.trySucceed(42) }
                    source.task.whenComplete(on: executors[id % executors.count]) { completion in
                        c.expectOutcome(of: completion, .success(42), "a continuation sees the task's outcome", call: call)
                        runs[id].increment()
                        if done.increment() == runs.count { allRan.trySucceed() }
                    }
                }
            }
            c.expectCompletes(allRan.task, "every continuation runs", call: call)
            let counts = runs.map(\.count)
            c.expect(
                counts.allSatisfy { $0 == 1 }, "every continuation runs exactly once", call: call,
                expected: "each of \(counts.count) ran once", observed: runCounts(counts))
        }

        static func happensBefore(_ c: RuleContext) throws {
            let backend = c.backend
            for executor in [backend.defaultExecutor, backend.inlineExecutor, backend.makeSerialExecutor(label: "c2.2")] {
                let shared = Unsynchronized([Int]())
                let source = backend.makeSource(of: Int.self)
                let seen = source.task.continueWith(on: executor, token: .none) { completion in
                    (shared.value, try completion.get())
                }
                let writer = Thread {
                    shared.value = Array(0..<100)
                    source.trySucceed(7)
                }
                writer.start()
                let call =
                    "source.task.continueWith(on: \(executorName(executor, in: backend))) { (shared.value, try $0.get()) } "
                    + "completed by trySucceed(7) on another thread after writing shared.value"
                let (array, value) = try c.requireValue(seen, "a continuation runs and sees the outcome", call: call)
                c.expectEqual(array, Array(0..<100), "a continuation sees every write made before the completion", call: call)
                c.expectEqual(value, 7, "a continuation sees the outcome", call: call)
            }
        }

        static func notRunInsideCalls(_ c: RuleContext) throws {
            let backend = c.backend
            for executor in [backend.defaultExecutor, backend.makeSerialExecutor(label: "c2.3")] {
                let inCall = PlainLocked<ObjectIdentifier?>(nil)
                let ranInside = Counter()
                let allRan = backend.makeSource(of: Void.self)
                let done = Counter()
                let body: @Sendable (Completion<Int>) -> Void = { _ in
                    if inCall.withLock({ $0 }) == ObjectIdentifier(Thread.current) { ranInside.increment() }
                    if done.increment() == 200 { allRan.trySucceed() }
                }
                let pending = backend.makeSource(of: Int.self)
                for _ in 0..<100 {
                    inCall.withLock { $0 = ObjectIdentifier(Thread.current) }
                    pending.task.whenComplete(on: executor, body)
                    inCall.withLock { $0 = nil }
                }
                inCall.withLock { $0 = ObjectIdentifier(Thread.current) }
                pending.trySucceed(1)
                inCall.withLock { $0 = nil }
                let completed = backend.succeeded(1)
                for _ in 0..<100 {
                    inCall.withLock { $0 = ObjectIdentifier(Thread.current) }
                    completed.whenComplete(on: executor, body)
                    inCall.withLock { $0 = nil }
                }
                let calls =
                    "100 × pending.task.whenComplete(on: \(executorName(executor, in: backend))), pending.trySucceed(1), "
                    + "100 × backend.succeeded(1).whenComplete(on: \(executorName(executor, in: backend)))"
                c.expectCompletes(allRan.task, "every continuation runs", call: calls)
                c.expectEqual(
                    ranInside.count, 0,
                    "continuations on a \(executorName(executor, in: backend)) executor never run inside the call that registers or completes",
                    call: calls)
            }
            // The inline executor is the exception: on a completed task the body runs before the call returns.
            let ran = Counter()
            backend.succeeded(1).whenComplete(on: backend.inlineExecutor) { _ in ran.increment() }
            c.expectEqual(
                ran.count, 1, "on a completed task, a continuation on the inline executor runs before whenComplete returns",
                call: "backend.succeeded(1).whenComplete(on: backend.inlineExecutor) { ... }")
        }

        static func registrationOrder(_ c: RuleContext) throws {
            let backend = c.backend
            let user = UserExecutor()
            let serial = backend.makeSerialExecutor(label: "c2.4")
            for executor in [serial, backend.inlineExecutor, user as any AsyncTaskExecutor] {
                let source = backend.makeSource(of: Int.self)
                let order = Recorder<Int>()
                let count = 500
                var last: any AsyncTask<Void> = backend.succeeded(())
                for index in 0..<count {
                    if index == count / 2 { source.trySucceed(0) }
                    last = source.task.continueWith(on: executor, token: .none) { _ in order.append(index) }
                }
                let call =
                    "500 × source.task.continueWith(on: \(executorName(executor, in: backend))) { order.append(i) }, trySucceed(0) after the 250th"
                c.expectCompletes(last, "every continuation runs", call: call)
                c.expect(
                    eventually { order.all.count == count }, "every continuation runs", call: call,
                    expected: "\(count) runs", observed: "\(order.all.count) runs")
                let seen = order.all
                c.expect(
                    seen == Array(0..<count), "continuations are handed over, and run, in registration order", call: call,
                    expected: "0, 1, 2, ... \(count - 1)", observed: firstDisorder(seen))
            }
        }

        static func lateRegistrationKeepsOrder(_ c: RuleContext) throws {
            let backend = c.backend
            let gate = GateExecutor()
            let user = UserExecutor()
            let order = Recorder<Int>()
            let source = backend.makeSource(of: Int.self)
            source.task.whenComplete(on: gate) { _ in }
            let second = source.task.continueWith(on: user, token: .none) { _ in order.append(2) }
            let completer = Thread { source.trySucceed(1) }
            completer.start()
            // The completing thread is now inside the first hand-over; register a third continuation.
            let call = "source.trySucceed(1) handing over to a blocking executor, meanwhile source.task.continueWith(on: user) (3rd)"
            c.expectEqual(
                gate.entered.wait(timeout: .now() + 10), .success, "the completing hand-over reaches the first continuation's executor",
                call: "source.trySucceed(1) on another thread")
            let third = source.task.continueWith(on: user, token: .none) { _ in order.append(3) }
            gate.release.signal()
            c.expectCompletes(second, "the second continuation runs", call: call)
            c.expectCompletes(third, "the late (third) continuation runs", call: call)
            c.expectEqual(
                order.all, [2, 3], "a continuation registered during the completing hand-over does not overtake an earlier one",
                call: call)
        }

        /// When a task completes inside inline work, its hand-overs are queued on the thread's
        /// trampoline (C2.7); a registration made on another thread before they ran must still be
        /// handed over after them, also on an executor that runs jobs synchronously.
        static func deferredHandOffKeepsOrder(_ c: RuleContext) throws {
            let b = c.backend
            final class Synchronous: AsyncTaskExecutor {
                func execute(_ job: @escaping @Sendable () -> Void) { job() }
            }
            for _ in 0..<20 {
                let user = Synchronous()
                let order = Recorder<Int>()
                let first: any CompletionSource<Int> = b.makeSource()
                let second: any CompletionSource<Int> = b.makeSource()
                second.task.whenComplete(on: user) { _ in order.append(1) }
                let registerNow = DispatchSemaphore(value: 0)
                let registered = DispatchSemaphore(value: 0)
                let registrar = b.run { [second] _ in
                    registerNow.wait()
                    second.task.whenComplete(on: user) { _ in order.append(2) }
                    registered.signal()
                }
                first.task.whenComplete(on: b.inlineExecutor) { _ in
                    second.trySucceed(1)  // hand-off to `user` queued behind this inline job
                    registerNow.signal()
                    registered.wait()
                }
                first.trySucceed(0)
                _ = registrar.wait()
                // The deliveries may come later, from a thread of the backend's (an event loop's):
                // judge their order once both came, or the slack is over.
                _ = eventually(within: c.timingSlack) { order.all.count >= 2 }
                c.expectEqual(
                    order.all, [1, 2], "a registration does not overtake a hand-off queued on a trampoline",
                    call: "second.trySucceed(1) inside inline work, then second.task.whenComplete(on: user) on another thread")
            }
            // The same for a registration on a task that completed long ago: made inside inline work,
            // its hand-off is queued, and one made on another thread meanwhile must wait behind it.
            for _ in 0..<20 {
                let user = Synchronous()
                let order = Recorder<Int>()
                let done = b.succeeded(0)
                let registerNow = DispatchSemaphore(value: 0)
                let registered = DispatchSemaphore(value: 0)
                let registrar = b.run { _ in
                    registerNow.wait()
                    done.whenComplete(on: user) { _ in order.append(2) }
                    registered.signal()
                }
                let outer: any CompletionSource<Int> = b.makeSource()
                outer.task.whenComplete(on: b.inlineExecutor) { _ in
                    done.whenComplete(on: user) { _ in order.append(1) }  // queued behind this job
                    registerNow.signal()
                    registered.wait()
                }
                outer.trySucceed(0)
                _ = registrar.wait()
                _ = eventually(within: c.timingSlack) { order.all.count >= 2 }
                c.expectEqual(
                    order.all, [1, 2], "a registration does not overtake a late one queued on a trampoline",
                    call: "done.whenComplete(on: user) inside inline work, then again on another thread")
            }
        }

        static func runsOnItsExecutor(_ c: RuleContext) throws {
            let backend = c.backend
            let user = UserExecutor()
            let source = backend.makeSource(of: Int.self)
            let checks: [any AsyncTask<Bool>] = (0..<50).map { index in
                (index.isMultiple(of: 2) ? source.task : backend.succeeded(1))
                    .continueWith(on: user, token: .none) { _ in user.isCurrent }
            }
            source.trySucceed(1)
            let call = "task.continueWith(on: user) { _ in user.isCurrent } on 25 pending and 25 completed tasks"
            let ran = try c.requireValue(backend.whenAll(checks), "every continuation runs", call: call)
            c.expect(
                ran.allSatisfy { $0 }, "a continuation runs on the executor it was registered with", call: call,
                expected: "50 on the user's executor", observed: "\(ran.filter { !$0 }.count) of 50 elsewhere")
            c.expect(
                user.submitted.count >= 50, "the user's executor gets every job", call: call,
                expected: "at least 50 jobs submitted", observed: "\(user.submitted.count)")
            c.expectOutcome(
                backend.run(on: user, token: .none) { _ in user.isCurrent }, .success(true),
                "a body runs on the executor it was given", call: "backend.run(on: user) { _ in user.isCurrent }")
            c.expectOutcome(
                backend.succeeded(1).map(on: user) { _ in user.isCurrent }, .success(true),
                "a continuation runs on the executor it was given", call: "backend.succeeded(1).map(on: user) { _ in user.isCurrent }")
        }

        static func unwrapping(_ c: RuleContext) throws {
            let backend = c.backend
            for outcome in [Completion<Int>.success(3), .failure(TestError(code: 4)), .cancelled] {
                let inner = backend.makeSource(of: Int.self)
                let outer = backend.succeeded(1).continueWithTask(on: backend.defaultExecutor, token: .none) { _ in inner.task }
                let flat = backend.succeeded(1).flatMap { _ in inner.task }
                let recovered = backend.failed(TestError(code: 1), as: Int.self).recoverTask { _ in inner.task }
                // Still pending: the outer tasks wait for the inner one.
                c.expectPending(
                    outer, "a continuation returning a pending task waits for it",
                    call: "backend.succeeded(1).continueWithTask(on: default) { _ in inner.task }")
                inner.tryComplete(outcome)
                let calls = [
                    "continueWithTask(on: default) { _ in inner.task }", "flatMap { _ in inner.task }",
                    "recoverTask { _ in inner.task } on a failure"
                ]
                for (task, call) in zip([outer, flat, recovered], calls) {
                    c.expectOutcome(
                        task, outcome, "a continuation returning a task takes its outcome",
                        call: "backend.succeeded(1).\(call), inner completed \(RuleContext.describe(outcome))")
                }
            }
        }
    }
}
