import Foundation
import TaskAPI

extension RuleSuite {
    /// A check of an executor a backend ships beside the three every backend offers (BackendGCD's
    /// `DispatchQueueExecutor`, say), judged by C7.1, C7.3 and C9.7 as for any executor: the
    /// suite cannot make it, so the caller passes a maker. Add it to the checks `checkAll` runs:
    ///
    ///     let rules = RuleSuite.checks + [RuleSuite.executorCheck(named: "DispatchQueueExecutor") {
    ///         DispatchQueueExecutor(DispatchQueue(label: "checked"))
    ///     }]
    ///     let report = await Conformance.checkAll(makeBackend: { GCDBackend() }, rules: rules)
    public static func executorCheck(named name: String, _ make: @escaping @Sendable () -> any AsyncTaskExecutor) -> RuleCheck {
        RuleCheck(.c7_1, "\(name): bodies and continuations run on it, each job once, and it knows its own jobs") { c in
            C7OwnExecutors.check(c, name: name, executor: make())
        }
    }

    enum C7OwnExecutors {
        /// Jobs handed to the executor directly, each counted as it runs.
        static let jobs = 200

        static func check(_ c: RuleContext, name: String, executor: any AsyncTaskExecutor) {
            let backend = c.backend
            let run = backend.run(on: executor, token: .none) { _ in executor.isCurrent }
            let continued = backend.succeeded(1).continueWith(on: executor, token: .none) { _ in executor.isCurrent }
            c.expectOutcome(
                run, .success(true), "a body runs on \(name), which knows it (C9.7)", call: "backend.run(on: \(name)) { isCurrent }")
            c.expectOutcome(
                continued, .success(true), "a continuation runs on \(name), which knows it (C9.7)",
                call: "backend.succeeded(1).continueWith(on: \(name)) { isCurrent }")
            c.expect(
                !executor.isCurrent, "\(name).isCurrent is false outside its jobs (C9.7)", call: "\(name).isCurrent on the check's thread",
                expected: "false", observed: "true")
            let ran = Counter()
            let done = backend.makeSource(of: Void.self)
            for _ in 0..<jobs {
                executor.execute {
                    if ran.increment() == jobs { done.trySucceed(()) }
                }
            }
            let call = "\(jobs) × \(name).execute { count }"
            c.expectOutcome(done.task, .success(()), "every job handed to \(name) runs (C7.3)", call: call)
            // A job run twice would count past `jobs`, as late as the last one ran.
            let last = backend.run(on: executor, token: .none) { _ in ran.count }
            c.expectOutcome(
                last, .success(jobs), "each job handed to \(name) runs once (C7.3)", call: call + ", then one more job reads the count")
        }
    }
}
