import ScheduleKit
import TaskAPI

extension RuleSuite {
    /// The main-executor checks (`RuleSuite.mainExecutorChecks`): what C9.8, C9.7, C7.3, C9.10 and
    /// C4.3 say of `backend.mainExecutor`'s jobs, which run only while the process's main thread
    /// serves the backend's main loop. Each runs on a thread of its own, as every rule check does,
    /// while `runMainExecutorChecks` serves the main loop on the main thread (or the process
    /// serves it, `dispatchMain()`).
    enum C9MainExecutor {
        /// Jobs per round of the order and once checks.
        static let jobs = 200

        /// C9.8: jobs run on the main thread (where the main actor's isolation holds, and
        /// `MainActor.assumeIsolated` with it), in submission order (from two threads: each one's
        /// in its order), one at a time.
        static func jobsOnTheMainThread(_ c: RuleContext) throws {
            let main = c.backend.mainExecutor
            let order = Recorder<Int>()
            let offMain = Recorder<Int>()
            race(2) { thread in
                for index in 0..<(jobs / 2) {
                    let job = thread * jobs + index
                    main.execute {
                        if MainThreadContext.isCurrent {
                            // Where the runtime's main-actor check holds: a broken promise stops
                            // the process here, as it would a user's `@MainActor` body.
                            MainActor.assumeIsolated {}
                        } else {
                            offMain.append(job)
                        }
                        order.append(job)
                    }
                }
            }
            let call = "backend.mainExecutor.execute { } \(jobs / 2) times from each of 2 threads"
            try fence(c, main, after: call)
            c.expect(
                eventually { order.all.count >= jobs }, "the main executor runs every job", call: call,
                expected: "\(jobs) jobs ran", observed: "\(order.all.count) ran")
            c.expect(
                offMain.all.isEmpty, "the main executor runs its jobs on the process's main thread", call: call,
                expected: "every job on the main thread (or the main queue, served by dispatchMain())",
                observed: "\(offMain.all.count) of \(order.all.count) ran on another thread")
            let all = order.all
            for thread in 0..<2 {
                let mine = all.filter { $0 / jobs == thread }.map { $0 % jobs }
                c.expect(
                    mine == Array(0..<(jobs / 2)), "the main executor runs one submitter's jobs in submission order",
                    call: call + " (thread \(thread)'s jobs)", expected: "0, 1, 2, ... \(jobs / 2 - 1)", observed: firstDisorder(mine))
            }
            for handOff in [false, true] {
                let rounds = 5
                let hold = C7SerialExclusion.hold
                let probe = ExclusionProbe.run(rounds: rounds, hold: hold, handOff: handOff) { main.execute($0) }
                probe.judge(
                    c, call: ExclusionProbe.call("backend.mainExecutor", hold: hold, handOff: handOff, rounds: rounds),
                    executor: "the main executor")
            }
        }

        /// C7.3 on the main executor: each job runs exactly once.
        static func eachJobOnce(_ c: RuleContext) throws {
            let main = c.backend.mainExecutor
            let runs = (0..<jobs).map { _ in Counter() }
            for index in 0..<jobs {
                main.execute { runs[index].increment() }
            }
            let call = "backend.mainExecutor.execute { } \(jobs) times"
            try fence(c, main, after: call)
            c.expect(
                eventually { runs.allSatisfy { $0.count > 0 } }, "the main executor runs every job", call: call,
                expected: "each of \(jobs) ran", observed: runCounts(runs.map(\.count)))
            // A job run twice runs its second time before a job submitted after the first time.
            try fence(c, main, after: call)
            let counts = runs.map(\.count)
            c.expect(
                counts.allSatisfy { $0 == 1 }, "the main executor runs each job exactly once", call: call,
                expected: "each of \(jobs) ran once", observed: runCounts(counts))
        }

        /// C9.7: `isCurrent` is true inside the main executor's jobs only.
        static func isCurrent(_ c: RuleContext) throws {
            let backend = c.backend
            let main = backend.mainExecutor
            let serial = backend.makeSerialExecutor(label: "c9.7-main")
            c.expectEqual(main.isCurrent, false, "the main executor is not current off its jobs", call: "backend.mainExecutor.isCurrent")
            let inside = backend.makeSource(of: [Bool].self)
            main.execute {
                inside.trySucceed([main.isCurrent, main.executor.isCurrent, backend.defaultExecutor.isCurrent, serial.isCurrent])
            }
            let seen = try c.requireValue(inside.task, "a main-executor job runs", call: "backend.mainExecutor.execute { }")
            c.expectEqual(
                seen, [true, true, false, false],
                "inside a main-executor job its isCurrent is true (as a plain executor too), the default's and a serial executor's false",
                call: "in backend.mainExecutor.execute: [main.isCurrent, main.executor.isCurrent, default.isCurrent, serial.isCurrent]")
            let elsewhere = backend.run { main.isCurrent }
            c.expectOutcome(
                elsewhere, .success(false), "the main executor is not current in a default-executor job",
                call: "backend.run { backend.mainExecutor.isCurrent }")
        }

        /// C9.10: every continuation form on the main executor, with and without a token, runs its
        /// `@MainActor` body on the main actor, as one of the main executor's jobs, once.
        static func everyForm(_ c: RuleContext) throws {
            try requireMainThread(c)
            let backend = c.backend
            let main = backend.mainExecutor
            let board = MainBoard()
            let liveSource = backend.makeCancellationSource()
            let live = liveSource.token
            let value = backend.succeeded(2)
            let failed = backend.failed(TestError(code: 9), as: Int.self)
            let tasks: [any AsyncTask<Int>] = [
                value.continueWith(on: main) { _ in board.enter("continueWith", main) },
                value.continueWith(on: main, token: live) { _ in board.enter("continueWith token", main) },
                value.continueWithTask(on: main) { _ in backend.succeeded(board.enter("continueWithTask", main)) },
                value.map(on: main) { board.enter("map", main) * $0 },
                value.map(on: main, token: live) { board.enter("map token", main) * $0 },
                value.flatMap(on: main, token: .none) { backend.succeeded(board.enter("flatMap", main) * $0) },
                value.then(on: main) { board.enter("then", main) * $0 },
                failed.recover(on: main) { _ in board.enter("recover", main) },
                failed.recoverTask(on: main) { _ in backend.succeeded(board.enter("recoverTask", main)) },
                failed.catch(on: main) { _ in board.enter("catch", main) },
                value.finally(on: main) { _ in _ = board.enter("finally", main) },
                value.finallyTask(on: main) { _ in
                    _ = board.enter("finallyTask", main)
                    return backend.succeeded(())
                },
                backend.run(on: main) { board.enter("run", main) },
                backend.run(on: main, token: live) { _ in board.enter("run token", main) },
                backend.runTask(on: main) { backend.succeeded(board.enter("runTask", main)) }
            ]
            let observed = backend.makeSource(of: Void.self)
            value.whenComplete(on: main) { _ in
                _ = board.enter("whenComplete", main)
                observed.trySucceed()
            }
            let call = "every continuation form on backend.mainExecutor (\(tasks.count + 1) bodies writing main-actor state)"
            c.expectCompletes(backend.whenAll(tasks), "every form on the main executor completes", call: call)
            c.expectCompletes(observed.task, "whenComplete(on: main) runs its body", call: call)
            let entries = try c.requireValue(backend.run(on: main) { board.entries }, "a run on the main executor reads them", call: call)
            let expected = [
                "catch", "continueWith", "continueWith token", "continueWithTask", "finally", "finallyTask", "flatMap", "map",
                "map token", "recover", "recoverTask", "run", "run token", "runTask", "then", "whenComplete"
            ]
            withExtendedLifetime(liveSource) {}
            c.expectEqual(
                entries.sorted(), expected,
                "each form's @MainActor body ran once, as a job of the main executor (isCurrent), writing main-actor state",
                call: call)
        }

        /// C4.3 on the main executor: a body whose token is cancelled before it starts never runs,
        /// and its task completes cancelled: a continuation whose antecedent completes after the
        /// cancel, and a `run` queued behind a main-executor job that holds the main thread until
        /// the cancel has returned.
        static func cancelledToken(_ c: RuleContext) throws {
            try requireMainThread(c)
            let backend = c.backend
            let main = backend.mainExecutor
            let bodies = Counter()
            let source = backend.makeCancellationSource()
            let gate = backend.makeSource(of: Int.self)
            let mapped = gate.task.map(on: main, token: source.token) { value in
                bodies.increment(); return value
            }
            let continued = gate.task.continueWith(on: main, token: source.token) { _ in bodies.increment() }
            let held = Latch()
            main.execute { _ = held.wait(until: MonotonicClock.deadline(after: patience)) }
            let queued = backend.run(on: main, token: source.token) { _ in bodies.increment() }
            source.cancel()
            held.open()
            gate.trySucceed(1)
            c.expectOutcome(
                mapped, .cancelled,
                "a continuation on the main executor whose token was cancelled before its antecedent completed is cancelled",
                call: "pending.map(on: backend.mainExecutor, token:) { }, cancel(), then the antecedent succeeds")
            c.expectOutcome(
                continued, .cancelled, "so is a continueWith",
                call: "pending.continueWith(on: backend.mainExecutor, token:) { }, cancel(), then the antecedent succeeds")
            c.expectOutcome(
                queued, .cancelled, "a run on the main executor whose token was cancelled before its job started is cancelled",
                call: "backend.run(on: backend.mainExecutor, token:) { } queued behind a held main job, cancel(), then the job let go")
            try fence(c, main, after: "the forms above")
            c.expectEqual(
                bodies.count, 0, "no @MainActor body whose token was cancelled before it started runs",
                call: "map, continueWith and run on backend.mainExecutor with a token cancelled before their bodies could start")
        }

        /// C9.8: the main loop refuses to be served inside one of its jobs, and off the main
        /// thread: `runMainLoop(until:)` and `runMainLoop()` return false at once there.
        static func refusesOffTheMainThread(_ c: RuleContext) throws {
            let backend = c.backend
            let done = backend.succeeded(0)
            let inside = backend.makeSource(of: Bool.self)
            backend.mainExecutor.execute { inside.trySucceed(backend.runMainLoop(until: done)) }
            c.expectOutcome(
                inside.task, .success(false), "runMainLoop(until:) inside a main-executor job returns false, running nothing",
                call: "in backend.mainExecutor.execute: backend.runMainLoop(until: completed)")
            c.expectEqual(
                backend.runMainLoop(until: done), false, "runMainLoop(until:) off the main thread returns false at once",
                call: "backend.runMainLoop(until: completed) on a thread of the check's")
            c.expectEqual(
                backend.runMainLoop(), false, "runMainLoop() off the main thread returns false at once",
                call: "backend.runMainLoop() on a thread of the check's")
        }

        /// Waits for a job submitted now: every job submitted before it has run by then (FIFO).
        static func fence(_ c: RuleContext, _ main: MainExecutor, after call: String) throws {
            let reached = c.backend.makeSource(of: Void.self)
            main.execute { reached.trySucceed() }
            _ = try c.requireOutcome(
                reached.task, "the main executor runs a job submitted after the others (is the main thread serving it?)",
                call: "backend.mainExecutor.execute { } after \(call)")
        }

        /// Stops the check unless a main-executor job runs where the main actor's isolation holds:
        /// the forms enter their `@MainActor` bodies with `MainActor.assumeIsolated`, which would
        /// stop the process anywhere else (the C9.8 check reports where the jobs ran).
        static func requireMainThread(_ c: RuleContext) throws {
            let probe = c.backend.makeSource(of: Bool.self)
            c.backend.mainExecutor.execute { probe.trySucceed(MainThreadContext.isCurrent) }
            let onMain = try c.requireValue(probe.task, "a main-executor job runs", call: "backend.mainExecutor.execute { }")
            try c.require(
                onMain, "a main-executor job runs on the main thread, where a @MainActor body may run (its forms are not called)",
                call: "backend.mainExecutor.execute { }", expected: "on the main thread", observed: "on another thread")
        }
    }

    /// Main-actor state that the forms' `@MainActor` bodies write directly (C9.10).
    @MainActor final class MainBoard {
        private(set) var entries: [String] = []

        nonisolated init() {}

        /// Records `name` (marked when not run as a job of the main executor); its count.
        func enter(_ name: String, _ main: MainExecutor) -> Int {
            entries.append(main.isCurrent ? name : "\(name) (off the main executor)")
            return entries.count
        }
    }
}
