import Foundation
import TaskAPI

extension RuleSuite {
    /// Contract 1.4: a combinator (C5.1-C5.3, and `whenAll(a, b, ...)` written over C5.1's) and a
    /// task-returning form (C2.6) take any conformer of `AsyncTask`, with the outcomes, order and
    /// fail-fast they give the backend's own tasks. The inputs here are `ForeignTask`s: the
    /// backend's own tasks wrapped in a class it does not know, mixed with its own, alternating
    /// (a fast path keyed on the class seen last meets a foreign class right after its own), and
    /// completed from a thread of the check's (a foreign input's completion may arrive on any
    /// thread). A backend that casts such an input to its own class traps: each step runs under
    /// `namingTraps`, so the crash names the rule, the check and the call on standard error.
    enum ForeignInputs {
        /// "own": the backend's task; "foreign": the same wrapped in a `ForeignTask`.
        static func mixed<T: Sendable>(_ tasks: [any AsyncTask<T>], foreignFirst: Bool = false) -> [any AsyncTask<T>] {
            tasks.indices.map { index in index.isMultiple(of: 2) == foreignFirst ? ForeignTask(tasks[index]) : tasks[index] }
        }

        /// The inputs' kinds as a call shows them: "[own, foreign, own]".
        static func kinds<T: Sendable>(_ tasks: [any AsyncTask<T>]) -> String {
            "[" + tasks.map { $0 is ForeignTask<T> ? "foreign" : "own" }.joined(separator: ", ") + "]"
        }

        static func whenAll(_ c: RuleContext) throws {
            let backend = c.backend
            let sources = (0..<8).map { _ in backend.makeSource(of: Int.self) }
            let inputs = mixed(sources.map { $0.task })
            let call = "backend.whenAll(\(kinds(inputs))), own inputs completed on one thread, foreign on another, last to first"
            c.namingTraps(call: call) {
                let all = backend.whenAll(inputs)
                race(2) { thread in
                    for index in sources.indices.reversed() where index.isMultiple(of: 2) == (thread == 0) {
                        sources[index].trySucceed(index * 10)
                    }
                }
                c.expectOutcome(all, .success((0..<8).map { $0 * 10 }), "whenAll keeps input order, foreign inputs included", call: call)
            }

            let late = backend.makeSource(of: Int.self)
            let completed: [any AsyncTask<Int>] = [
                ForeignTask(backend.succeeded(1)), backend.succeeded(2), ForeignTask(late.task), ForeignTask(backend.run { 4 })
            ]
            let completedCall = "backend.whenAll([foreign succeeded(1), own succeeded(2), foreign pending, foreign run { 4 }])"
            c.namingTraps(call: completedCall) {
                let all = backend.whenAll(completed)
                late.trySucceed(3)
                c.expectOutcome(
                    all, .success([1, 2, 3, 4]), "whenAll takes completed and pending foreign inputs",
                    call: completedCall + ", the pending one succeeded 3")
            }
            alternatingJoins(c)
            try failsFast(c)
            try typedWhenAll(c)
        }

        /// Joins of eight `run` tasks, own and foreign alternating, the first one's kind
        /// alternating from join to join.
        static func alternatingJoins(_ c: RuleContext) {
            let backend = c.backend
            for round in 0..<40 {
                let inputs = mixed((0..<8).map { index in backend.run { index } }, foreignFirst: round.isMultiple(of: 2))
                let call = "backend.whenAll(\(kinds(inputs))) of run { index }, join \(round) of 40 alternating the first input's kind"
                let outcome = c.namingTraps(call: call) { backend.whenAll(inputs).settle() }
                let met = c.expectOutcome(
                    of: outcome, .success(Array(0..<8)), "whenAll keeps input order whichever kind of input comes first", call: call)
                if !met { return }
            }
        }

        /// A foreign failure or cancellation fails the join at once, an own input still pending.
        static func failsFast(_ c: RuleContext) throws {
            let backend = c.backend
            for failure in [Completion<Int>.failure(TestError(code: 1)), .cancelled] {
                let pending = backend.makeSource(of: Int.self)
                let failing = backend.makeSource(of: Int.self)
                let call =
                    "backend.whenAll([own succeeded(1), own pending, foreign failing]), failing completed \(RuleContext.describe(failure))"
                c.namingTraps(call: call) {
                    let joined = backend.whenAll([backend.succeeded(1), pending.task, ForeignTask(failing.task)])
                    Thread.detachNewThread { failing.tryComplete(failure) }
                    let expected: Completion<[Int]> = failure.error.map { .failure($0) } ?? .cancelled
                    c.expectOutcome(
                        joined, expected, "whenAll fails fast with a foreign input's failure, not waiting for a pending input", call: call)
                }
                pending.trySucceed(0)
            }
        }

        /// `whenAll(a, b, ...)`, written over the array `whenAll` with a `map` of each input: a
        /// foreign input's `map` is foreign too, so the backend's `whenAll` is given foreign tasks.
        static func typedWhenAll(_ c: RuleContext) throws {
            let backend = c.backend
            let text = backend.makeSource(of: String.self)
            let call = "backend.whenAll(foreign succeeded(7), foreign pending text, own succeeded(true)), text succeeded \"s\""
            try c.namingTraps(call: call) {
                let joined = backend.whenAll(ForeignTask(backend.succeeded(7)), ForeignTask(text.task), backend.succeeded(true))
                text.trySucceed("s")
                let (n, s, f) = try c.requireValue(joined, "whenAll of typed foreign tasks completes once every input did", call: call)
                c.expect(
                    n == 7 && s == "s" && f, "whenAll of typed tasks gives the values as a tuple, in input order, foreign ones included",
                    call: call, expected: "(7, \"s\", true)", observed: "(\(n), \"\(s)\", \(f))")
            }
            let pending = backend.makeSource(of: Int.self)
            let failing = backend.makeSource(of: String.self)
            let failCall = "backend.whenAll(own pending, foreign failing), failing failed TestError(code: 2)"
            try c.namingTraps(call: failCall) {
                let all = backend.whenAll(pending.task, ForeignTask(failing.task))
                failing.tryFail(TestError(code: 2))
                let outcome = try c.requireOutcome(all, "whenAll of typed tasks fails fast with a foreign failure", call: failCall)
                c.expectEqual(
                    RuleContext.describe(outcome), "failure(TestError(code: 2))", "whenAll of typed tasks fails with the foreign failure",
                    call: failCall)
            }
            pending.trySucceed(0)
        }

        static func whenAllSettled(_ c: RuleContext) throws {
            let backend = c.backend
            let late = backend.makeSource(of: Int.self)
            let inputs: [any AsyncTask<Int>] = [
                ForeignTask(backend.failed(TestError(code: 1), as: Int.self)), ForeignTask(late.task), backend.cancelled(),
                ForeignTask(backend.cancelled(as: Int.self)), backend.succeeded(5)
            ]
            let call =
                "backend.whenAllSettled([foreign failed(TestError(code: 1)), foreign late, own cancelled(), foreign cancelled(), "
                + "own succeeded(5)])"
            try c.namingTraps(call: call) {
                let settled = backend.whenAllSettled(inputs)
                c.expectPending(settled, "whenAllSettled waits for a pending foreign input", call: call + ", late pending")
                Thread.detachNewThread { late.trySucceed(2) }
                let outcomes = try c.requireValue(
                    settled, "whenAllSettled completes once every input did, foreign ones included", call: call + ", late succeeded 2")
                let expected: [Completion<Int>] = [.failure(TestError(code: 1)), .success(2), .cancelled, .cancelled, .success(5)]
                c.expectEqual(
                    outcomes.map(RuleContext.describe), expected.map(RuleContext.describe),
                    "whenAllSettled gives every outcome in input order, foreign inputs' included", call: call + ", late succeeded 2")
            }
        }

        static func raceAndAny(_ c: RuleContext) throws {
            let backend = c.backend
            let slow = backend.makeSource(of: Int.self)
            let fast = backend.makeSource(of: Int.self)
            let raceCall = "backend.race([own slow, foreign fast]), fast failed TestError(code: 1) on another thread"
            c.namingTraps(call: raceCall) {
                let raced = backend.race([slow.task, ForeignTask(fast.task)])
                Thread.detachNewThread { fast.tryFail(TestError(code: 1)) }
                c.expectOutcome(
                    raced, .failure(TestError(code: 1)), "race takes a foreign input's outcome when it comes first", call: raceCall)
            }
            slow.trySucceed(2)
            let completedCall = "backend.race([own pending, foreign succeeded(7)])"
            c.namingTraps(call: completedCall) {
                let pending = backend.makeSource(of: Int.self)
                c.expectOutcome(
                    backend.race([pending.task, ForeignTask(backend.succeeded(7))]), .success(7),
                    "race takes a completed foreign input's outcome", call: completedCall)
                pending.trySucceed(0)
            }

            let a = backend.makeSource(of: Int.self)
            let b = backend.makeSource(of: Int.self)
            let anyCall = "backend.any([own a, foreign b]), a failed, then b succeeded 4"
            c.namingTraps(call: anyCall) {
                let first = backend.any([a.task, ForeignTask(b.task)])
                a.tryFail(TestError(code: 3))
                c.expectPending(first, "a failure is not enough for any: it waits for a foreign input's success", call: anyCall)
                b.trySucceed(4)
                c.expectOutcome(first, .success(4), "any takes a foreign input's success", call: anyCall)
            }
            anyFailsInInputOrder(c)
        }

        /// Every input fails, a foreign one last, out of input order: the AggregateError keeps
        /// input order, a cancelled foreign input giving `CancellationError`.
        static func anyFailsInInputOrder(_ c: RuleContext) {
            let backend = c.backend
            let late = backend.makeSource(of: Int.self)
            let call =
                "backend.any([foreign late, own failed(TestError(code: 5)), foreign cancelled(), foreign failed(TestError(code: 6))]),"
                + " late failed TestError(code: 7) last"
            c.namingTraps(call: call) {
                let none = backend.any([
                    ForeignTask(late.task), backend.failed(TestError(code: 5)), ForeignTask(backend.cancelled(as: Int.self)),
                    ForeignTask(backend.failed(TestError(code: 6), as: Int.self))
                ])
                late.tryFail(TestError(code: 7))
                let outcome = c.expectCompletes(none, "any completes once every input failed, foreign ones included", call: call)
                let errors = (outcome?.error as? AggregateError)?.errors.map { RuleContext.show($0) }
                c.expectEqual(
                    errors, ["TestError(code: 7)", "TestError(code: 5)", "CancellationError()", "TestError(code: 6)"],
                    "any fails with an AggregateError of every input's error in input order, foreign inputs' included", call: call)
            }
        }

        /// The task-returning forms given a foreign task by their body: the result takes its
        /// outcome, whatever it is and whenever it comes.
        static func taskReturningForms(_ c: RuleContext) throws {
            let backend = c.backend
            let flatCall = "backend.succeeded(20).flatMap { x in foreign succeeded(x + 1) }"
            c.namingTraps(call: flatCall) {
                c.expectOutcome(
                    backend.succeeded(20).flatMap { x -> any AsyncTask<Int> in ForeignTask(backend.succeeded(x + 1)) }, .success(21),
                    "flatMap takes a foreign task's value", call: flatCall)
            }
            for executor in [backend.defaultExecutor, backend.inlineExecutor] {
                let inner = backend.makeSource(of: Int.self)
                let call =
                    "backend.succeeded(1).flatMap(on: \(executorName(executor, in: backend))) { _ in foreign pending }, "
                    + "then it succeeded 8 on another thread"
                c.namingTraps(call: call) {
                    let flat = backend.succeeded(1).flatMap(on: executor) { _ -> any AsyncTask<Int> in ForeignTask(inner.task) }
                    c.expectPending(flat, "flatMap waits for a pending foreign task", call: call)
                    Thread.detachNewThread { inner.trySucceed(8) }
                    c.expectOutcome(flat, .success(8), "flatMap takes a foreign task's value when it comes", call: call)
                }
            }
            for outcome in [Completion<Int>.failure(TestError(code: 1)), .cancelled] {
                let call = "backend.succeeded(1).continueWithTask { _ in foreign completed(\(RuleContext.describe(outcome))) }"
                c.namingTraps(call: call) {
                    c.expectOutcome(
                        backend.succeeded(1).continueWithTask { _ -> any AsyncTask<Int> in ForeignTask(backend.completed(outcome)) },
                        outcome,
                        "continueWithTask takes a foreign task's outcome, a failure or cancellation too", call: call)
                }
            }
            recoveringForms(c)
        }

        /// `recoverTask`, `finallyTask` and `runTask` given a foreign task.
        static func recoveringForms(_ c: RuleContext) {
            let backend = c.backend
            let recoverCall = "backend.failed(TestError(code: 2)).recoverTask { _ in foreign succeeded(3) }"
            c.namingTraps(call: recoverCall) {
                c.expectOutcome(
                    backend.failed(TestError(code: 2), as: Int.self).recoverTask { _ -> any AsyncTask<Int> in
                        ForeignTask(backend.succeeded(3))
                    }, .success(3),
                    "recoverTask takes a foreign task's value", call: recoverCall)
            }
            let done = backend.makeSource(of: Void.self)
            let finallyCall = "backend.succeeded(5).finallyTask { _ in foreign pending }, then it succeeded"
            c.namingTraps(call: finallyCall) {
                let finished = backend.succeeded(5).finallyTask { _ -> any AsyncTask<Void> in ForeignTask(done.task) }
                c.expectPending(finished, "finallyTask waits for a pending foreign task", call: finallyCall)
                done.trySucceed(())
                c.expectOutcome(
                    finished, .success(5), "finallyTask passes its antecedent's outcome on once the foreign task succeeded",
                    call: finallyCall)
            }
            let failingCall = "backend.succeeded(5).finallyTask { _ in foreign failed(TestError(code: 4)) }"
            c.namingTraps(call: failingCall) {
                c.expectOutcome(
                    backend.succeeded(5).finallyTask { _ -> any AsyncTask<Void> in
                        ForeignTask(backend.failed(TestError(code: 4), as: Void.self))
                    },
                    .failure(TestError(code: 4)), "finallyTask takes a foreign task's failure", call: failingCall)
            }
            let runCall = "backend.runTask { foreign succeeded(9) }"
            c.namingTraps(call: runCall) {
                c.expectOutcome(
                    backend.runTask { () -> any AsyncTask<Int> in ForeignTask(backend.succeeded(9)) }, .success(9),
                    "runTask takes a foreign task's value", call: runCall)
            }
        }
    }
}

extension RuleContext {
    /// Runs `body`, a step of a check that hands the backend foreign tasks, so that a trap in it
    /// (a cast of a foreign input to the backend's own class) writes this check's rule, name and
    /// `call` to standard error before the process dies (`CrashReporter.namingTraps`).
    @discardableResult
    func namingTraps<T>(call: String, _ body: () throws -> T) rethrows -> T {
        try CrashReporter.namingTraps(
            message: "\(backend.name): \(check.rule) broken: the process crashed in the rule check \"\(check.name)\", "
                + "at \(call) (a task of another class taken for the backend's own?)",
            body)
    }
}
