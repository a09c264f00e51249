import Foundation
import Synchronization
import TaskAPI

extension RuleSuite {
    /// C8 Resources.
    enum C8Resources {
        static func closuresReleased(_ c: RuleContext) throws {
            let backend = c.backend
            let source = backend.makeSource(of: Int.self)
            let serial = backend.makeSerialExecutor(label: "c8.1")
            let user = UserExecutor()
            var weakProbes: [() -> Probe?] = []
            var tasks: [any AsyncTask<Int>] = []
            for executor in [backend.defaultExecutor, backend.inlineExecutor, serial, user] {
                let probe = Probe()
                weak let weakProbe = probe
                weakProbes.append { weakProbe }
                tasks.append(
                    source.task.map(on: executor) {
                        _ = probe; return $0
                    })
                tasks.append(
                    source.task.continueWithTask(on: executor, token: .none) { _ in
                        _ = probe; return backend.succeeded(1)
                    })
                tasks.append(
                    source.task.recover(on: executor) { _ in
                        _ = probe; return 0
                    })
                tasks.append(source.task.finally(on: executor) { _ in _ = probe })
            }
            let token = backend.makeCancellationSource()
            do {
                let probe = Probe()
                weak let tokenProbe = probe
                weakProbes.append { tokenProbe }
                tasks.append(
                    backend.run(token: token.token) { _ in
                        _ = probe; return 1
                    })
                tasks.append(source.task.timeout(after: .seconds(60)))
            }
            source.trySucceed(1)
            let call =
                "map, continueWithTask, recover and finally on default, inline, serial and user executors, "
                + "run(token:) and timeout(after:), each capturing a probe"
            c.expectEqual(c.settle(backend.whenAll(tasks), call: call)?.kind, .success, "every continuation completes", call: call)
            c.expectEqual(tasks.filter { $0.status != .completed }.count, 0, "every task is completed (tasks that are not)", call: call)
            c.expect(
                eventually { weakProbes.allSatisfy { $0() == nil } }, "a completed task keeps no continuation's closure or capture",
                call: call + ", the tasks still referenced", expected: "every probe freed",
                observed: "\(weakProbes.filter { $0() != nil }.count) of \(weakProbes.count) probes alive")
        }

        static func noRetainCycles(_ c: RuleContext) throws {
            let backend = c.backend
            weak var pendingTask: (any AsyncTask<Int>)?
            weak var pendingChain: (any AsyncTask<Int>)?
            weak var completedChain: (any AsyncTask<Int>)?
            weak var cancellation: (any CancellationSource)?
            weak var value: Probe?
            weak var largeValue: Probe?
            weak var error: ProbeError?
            weak var thrown: ProbeError?
            do {
                let source = backend.makeSource(of: Int.self)
                pendingTask = source.task
                pendingChain = source.task.map { $0 + 1 }.flatMap { backend.succeeded($0) }
                let done = backend.succeeded(1).map(on: backend.inlineExecutor) { $0 + 1 }
                _ = done.settle()
                completedChain = done
                let tokenSource = backend.makeCancellationSource()
                cancellation = tokenSource
                _ = source.task.map(token: tokenSource.token) { $0 }
                // A task's outcome is its own: freed with it (a success's value, a failure's error).
                let kept = Probe()
                value = kept
                _ = backend.succeeded(kept)
                let inLarge = Probe()
                largeValue = inLarge
                _ = backend.succeeded((inLarge, 1, 2, 3))  // four words: a backend may store it apart
                let failure = ProbeError()
                error = failure
                backend.makeSource(of: Int.self).tryFail(failure)
                let fromBody = ProbeError()
                thrown = fromBody
                _ = backend.run(token: .none) { _ -> Int in throw fromBody }.settle()
            }
            let leaks: [(String, String, () -> Bool)] = [
                (
                    "a pending task is freed once neither it nor its source is referenced",
                    "backend.makeSource(of: Int.self), dropped pending",
                    { pendingTask == nil }
                ),
                (
                    "a pending chain is freed with its source",
                    "source.task.map { $0 + 1 }.flatMap { backend.succeeded($0) }, dropped pending",
                    { pendingChain == nil }
                ),
                (
                    "a completed chain is freed", "backend.succeeded(1).map(on: inline) { $0 + 1 }, completed, dropped",
                    { completedChain == nil }
                ),
                (
                    "a cancellation source is freed, with a continuation on its token",
                    "backend.makeCancellationSource(), its token used by a map",
                    { cancellation == nil }
                ),
                (
                    "a completed task's outcome is freed with the task: its value", "backend.succeeded(object), dropped",
                    { value == nil }
                ),
                (
                    "a completed task's outcome is freed with the task: a value of four words",
                    "backend.succeeded((object, 1, 2, 3)), dropped", { largeValue == nil }
                ),
                (
                    "a completed task's outcome is freed with the task: its error",
                    "backend.makeSource(of: Int.self).tryFail(error object), dropped", { error == nil }
                ),
                (
                    "a completed task's outcome is freed with the task: the error its body threw",
                    "backend.run { throw error object }, completed, dropped", { thrown == nil }
                )
            ]
            for (message, call, freed) in leaks {
                c.expect(eventually(freed), message, call: call, expected: "freed", observed: "still alive after \(patience)")
            }
        }

        /// Issue 28, freed or not: each object the contract hands out, dropped in each state a
        /// program leaves it in, is freed (weakly observed), or releases the closure it was given
        /// (a probe it captures): a cancellation source linked to a parent that lives on, one with
        /// a pending `cancel(after:)`; a registration disposed, and the one `delay(_:token:)` makes
        /// on a token that lives on; a timer disposed, and one fired; a prepared task dropped
        /// before start, and one run to completion.
        static func everyObjectFreed(_ c: RuleContext) throws {
            let backend = c.backend
            let parent = backend.makeCancellationSource()
            var objects: [(what: String, freed: () -> Bool)] = []
            func watch(_ what: String, _ object: AnyObject) {
                weak let weakObject = object
                objects.append((what, { weakObject == nil }))
            }
            do {
                watch(
                    "backend.makeCancellationSource(linkedTo: [parent.token]), parent alive",
                    backend.makeCancellationSource(linkedTo: [parent.token]))
                let timed = backend.makeCancellationSource()
                timed.cancel(after: .seconds(3_600))
                watch("a cancellation source with cancel(after: 1 h) pending", timed)
                let probe = Probe()
                watch("a handler's capture, its registration on a token that lives on disposed", probe)
                parent.token.register { _ = probe }.dispose()
                let delayed = backend.delay(.milliseconds(1), token: parent.token)
                _ = delayed.settle()
                watch("delay(.milliseconds(1), token:) completed, its token alive", delayed)
                let timerProbe = Probe()
                watch("the job of a timer disposed before it fired", timerProbe)
                backend.schedule(after: .seconds(3_600)) { _ = timerProbe }.dispose()
                let firedProbe = Probe()
                let fired = backend.makeSource(of: Void.self)
                let firedTimer = backend.schedule(after: .milliseconds(1)) {
                    _ = firedProbe
                    fired.trySucceed()
                }
                _ = fired.task.settle()
                _ = firedTimer
                watch("the job of a timer that fired (its handle still held)", firedProbe)
                let bodyProbe = Probe()
                let unstarted = backend.prepare(token: parent.token) { _ in _ = bodyProbe }
                watch("a prepared task dropped before start", unstarted)
                watch("the body of a prepared task dropped before start", bodyProbe)
                let ranProbe = Probe()
                let ran = backend.prepare(token: parent.token) { _ in _ = ranProbe }
                ran.tryStart()
                _ = ran.task.settle()
                watch("a prepared task run to completion", ran)
                watch("the body of a prepared task run to completion", ranProbe)
            }
            for (what, freed) in objects {
                c.expect(
                    eventually(freed), "an object the contract makes is freed once unreferenced (or its closure released)",
                    call: what, expected: "freed", observed: "still alive after \(patience)")
            }
            _ = parent
        }

        static func abandonedSourceFailsItsTask(_ c: RuleContext) throws {
            let backend = c.backend
            let seen = Recorder<String>()
            var task: (any AsyncTask<Int>)?
            var waiter: Thread?
            let waited = PlainLocked<Completion<Int>?>(nil)
            let waiting = DispatchSemaphore(value: 0)
            let woke = DispatchSemaphore(value: 0)
            do {
                let source = backend.makeSource(of: Int.self)
                let pending = source.task
                task = pending
                pending.whenComplete(on: backend.defaultExecutor) { seen.append("\($0.error.map { "\($0)" } ?? "no error")") }
                waiter = Thread {
                    waiting.signal()
                    let outcome = pending.wait()
                    waited.withLock { $0 = outcome }
                    woke.signal()
                }
                waiter?.start()
                c.expectEqual(waiting.wait(timeout: .now() + 10), .success, "the waiting thread starts", call: "Thread { pending.wait() }")
            }
            // The source is gone: its task fails, the blocked waiter wakes, the continuation runs.
            let call = "backend.makeSource(of: Int.self) released while its task is pending, a thread in wait() on it"
            c.expect(
                woke.wait(timeout: .now() + 10) == .success, "a waiter on a task whose source was released wakes", call: call,
                expected: "wait() returned", observed: "still blocked after 10 s")
            c.expectOutcome(of: waited.withLock { $0 }, .failure(TaskError.abandoned), "wait() returns failure(abandoned)", call: call)
            c.expectCompletedAtOnce(task?.completion, .failure(TaskError.abandoned), "the task fails with TaskError.abandoned", call: call)
            c.expect(
                eventually { seen.all.count == 1 }, "the task's continuation runs once", call: call + ", a continuation on default",
                expected: "1 run", observed: "\(seen.all.count) runs")
            c.expectEqual(
                seen.all.first?.contains("abandoned"), true, "the continuation sees TaskError.abandoned",
                call: call + "; it saw \(seen.all.first ?? "nothing")")

            // A started source released: its task is running, not completed (C1.1's "pending
            // until it is completed"), and nothing can complete it any more.
            let started: any AsyncTask<Int> = {
                let source = backend.makeSource(of: Int.self)
                source.tryStart()
                return source.task
            }()
            c.expectOutcome(
                started, .failure(TaskError.abandoned), "a released source whose task was started fails it with abandoned",
                call: "source.tryStart(), then the source released")

            // A completed source released later changes nothing (C1.1).
            let done: any AsyncTask<Int> = {
                let source = backend.makeSource(of: Int.self)
                source.trySucceed(7)
                return source.task
            }()
            c.expectOutcome(
                done, .success(7), "a completed source released changes nothing", call: "source.trySucceed(7), then the source released")

            // A body whose job an executor drops can never run: its task fails instead of hanging.
            let dropped = backend.run(on: DroppingJobsExecutor(), token: .none) { _ in 1 }
            c.expectOutcome(
                of: dropped.wait(timeout: .seconds(10)), .failure(TaskError.abandoned),
                "a body whose job the executor drops fails its task with abandoned",
                call: "backend.run(on: an executor dropping every job) { 1 }")
        }
    }
}

/// An error that is an object, so that a check can watch it being freed (C8.2).
final class ProbeError: Error {}
