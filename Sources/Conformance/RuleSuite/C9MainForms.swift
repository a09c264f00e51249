import Foundation
import TaskAPI

extension RuleSuite {
    /// C9.10's forms on the main executor, every one, where no main thread serves it (the
    /// suite's threads are not the main thread, and a test process's main thread may never serve
    /// a backend's main loop): a form whose token is cancelled completes cancelled at once (C4.3),
    /// a form without a token waits for its antecedent (C2.2), and no `@MainActor` body runs.
    enum C9MainForms {
        static func everyFormOffMain(_ c: RuleContext) throws {
            let backend = c.backend
            let main = backend.mainExecutor
            let source = backend.makeCancellationSource()
            source.cancel()
            let token = source.token
            let bodies = Counter()
            let gate = backend.makeSource(of: Int.self)
            let task = gate.task
            let cancelledForms: [(String, any AsyncTask<Int>)] = [
                ("continueWith", task.continueWith(on: main, token: token) { _ in bodies.increment() }),
                ("continueWithTask", task.continueWithTask(on: main, token: token) { _ in backend.succeeded(bodies.increment()) }),
                ("flatMap", task.flatMap(on: main, token: token) { _ in backend.succeeded(bodies.increment()) }),
                ("then", task.then(on: main, token: token) { _ in bodies.increment() }),
                ("recover", task.recover(on: main, token: token) { _ in bodies.increment() }),
                ("recoverTask", task.recoverTask(on: main, token: token) { _ in backend.succeeded(bodies.increment()) }),
                ("catch", task.catch(on: main, token: token) { _ in bodies.increment() }),
                ("run { token in }", backend.run(on: main, token: token) { _ in bodies.increment() }),
                ("run { () in }", backend.run(on: main, token: token) { () in bodies.increment() }),
                ("runTask { token in }", backend.runTask(on: main, token: token) { _ in backend.succeeded(bodies.increment()) }),
                ("runTask { () in }", backend.runTask(on: main, token: token) { () in backend.succeeded(bodies.increment()) })
            ]
            for (form, derived) in cancelledForms {
                c.expectCompletedAtOnce(
                    derived.completion, .cancelled, "\(form) on the main executor with a cancelled token completes cancelled at once",
                    call: "\(form)(on: backend.mainExecutor, token: cancelled) { ... }, its antecedent pending")
            }
            let waitingForms: [(String, any AsyncTask<Int>)] = [
                ("finally", task.finally(on: main) { _ in bodies.increment() }),
                (
                    "finallyTask",
                    task.finallyTask(on: main) { _ in
                        bodies.increment()
                        return backend.succeeded(())
                    }
                )
            ]
            task.whenComplete(on: main) { _ in bodies.increment() }
            for (form, derived) in waitingForms {
                c.expect(
                    derived.completion == nil, "\(form) on the main executor waits for its pending antecedent",
                    call: "pending.\(form)(on: backend.mainExecutor) { ... }", expected: "pending",
                    observed: "completed: \(String(describing: derived.completion))")
            }
            c.expectEqual(
                bodies.count, 0, "no @MainActor body runs before its antecedent completed, nor with a cancelled token",
                call: "every form on backend.mainExecutor, the antecedent pending")
        }
    }
}
