import Foundation
import Synchronization
import TaskAPI

extension RuleSuite {
    /// C8 Resources.
    enum C8Resources {
        static let checks: [RuleCheck] = [
            RuleCheck("C8.1", "after completion nothing keeps continuation closures or captures alive", closuresReleased),
            RuleCheck("C8.2", "tasks and sources are freed when unreferenced, pending or completed", noRetainCycles),
            RuleCheck("C8.3", "a source released while pending fails its task with TaskError.abandoned", abandonedSourceFailsItsTask),
        ]

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
                tasks.append(source.task.map(on: executor) { _ = probe; return $0 })
                tasks.append(source.task.continueWithTask(on: executor, token: .none) { _ in _ = probe; return backend.succeeded(1) })
                tasks.append(source.task.recover(on: executor) { _ in _ = probe; return 0 })
                tasks.append(source.task.finally(on: executor) { _ in _ = probe })
            }
            let token = backend.makeCancellationSource()
            do {
                let probe = Probe()
                weak let tokenProbe = probe
                weakProbes.append { tokenProbe }
                tasks.append(backend.run(token: token.token) { _ in _ = probe; return 1 })
                tasks.append(source.task.timeout(after: .seconds(60)))
            }
            source.trySucceed(1)
            c.expectEqual(backend.whenAll(tasks).settle()?.isSuccess, true)
            c.expect(tasks.allSatisfy { $0.status == .completed })
            c.expect(eventually { weakProbes.allSatisfy { $0() == nil } }, "a completed continuation's captures are still alive")
        }

        static func noRetainCycles(_ c: RuleContext) throws {
            let backend = c.backend
            weak var pendingTask: (any AsyncTask<Int>)?
            weak var pendingChain: (any AsyncTask<Int>)?
            weak var completedChain: (any AsyncTask<Int>)?
            weak var cancellation: (any CancellationSource)?
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
            }
            c.expect(eventually { pendingTask == nil }, "a pending task with no source reference leaked")
            c.expect(eventually { pendingChain == nil }, "a pending chain leaked")
            c.expect(eventually { completedChain == nil }, "a completed chain leaked")
            c.expect(eventually { cancellation == nil }, "a cancellation source leaked")
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
                c.expectEqual(waiting.wait(timeout: .now() + 10), .success)
            }
            // The source is gone: its task fails, the blocked waiter wakes, the continuation runs.
            c.expect(woke.wait(timeout: .now() + 10) == .success, "a waiter on an abandoned source still hangs")
            c.expectEqual(waited.withLock { $0 }?.error as? TaskError, .abandoned)
            c.expectEqual(task?.completion?.error as? TaskError, .abandoned)
            c.expect(eventually { seen.all.count == 1 })
            c.expectEqual(seen.all.first?.contains("abandoned"), true)

            // A completed source released later changes nothing (C1.1).
            let done: any AsyncTask<Int> = {
                let source = backend.makeSource(of: Int.self)
                source.trySucceed(7)
                return source.task
            }()
            c.expect(try done.get() == 7)

            // A body whose job an executor drops can never run: its task fails instead of hanging.
            let dropped = backend.run(on: DroppingJobsExecutor(), token: .none) { _ in 1 }
            c.expectEqual(dropped.wait(timeout: .seconds(10))?.error as? TaskError, .abandoned)
        }
    }
}
