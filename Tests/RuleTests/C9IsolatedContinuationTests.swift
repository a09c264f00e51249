import Conformance
import Dispatch
import Foundation
import ScheduleKit
import TaskAPI
import Testing

/// C9.10: a continuation registered on a pinned actor takes the actor `isolated`, one registered
/// on the main executor is `@MainActor`; either runs on that executor, isolated, and writes the
/// isolated state directly. The main executor's forms run in child processes, where the main
/// queue is served: exit tests here (GCD, actors) and the example program for every backend
/// (C9MainExecutorTests).
@Suite("C9.10 Isolated continuations")
struct C9IsolatedContinuationTests {
    @Test(
        "C9.10 every continuation form on a pinned actor runs its body isolated to the actor, in registration order",
        arguments: Backends.all)
    func pinnedActorForms(_ c: BackendCase) async throws {
        let backend = c.backend
        let board = try Board.make(backend)
        let value = backend.succeeded(2)
        let failed = backend.failed(UnwrapError.antecedent, as: Int.self)
        let tasks: [any AsyncTask<Int>] = [
            value.continueWith(on: board) { board, _ in board.enter("a") },
            value.continueWithTask(on: board) { board, _ in backend.succeeded(board.enter("b")) },
            value.map(on: board) { board, v in board.enter("c") * v },
            value.flatMap(on: board, token: .none) { board, v in backend.succeeded(board.enter("d") * v) },
            value.then(on: board) { board, v in board.enter("e") * v },
            failed.recover(on: board) { board, _ in board.enter("f") },
            failed.recoverTask(on: board) { board, _ in backend.succeeded(board.enter("g")) },
            failed.catch(on: board) { board, _ in board.enter("h") },
            value.finally(on: board) { board, _ in _ = board.enter("i") },
            value.finallyTask(on: board) { board, _ in backend.succeeded(()).map { _ in } }.map(on: board) { board, v in
                board.enter("j") * v
            }
        ]
        let seen = Locked<Int>(0)
        let last = backend.makeSource(of: Void.self)
        value.whenComplete(on: board) { board, _ in
            seen.withLock { $0 = board.enter("k") }
            last.trySucceed()
        }
        let values = try #require(try backend.whenAll(tasks).settle()?.get())
        #expect(last.task.settle()?.isSuccess == true)
        #expect(values.count == tasks.count)
        #expect(await board.entries == 11)
        // One serial executor: the bodies on `value` ran in registration order (C2.4).
        let title = await board.title
        #expect(title.filter { "acdeik".contains($0) } == "acdeik", "\(title)")
        #expect(!title.contains("off the executor"), "\(title)")
    }

    /// The forms on the main executor run in an exit test's child process, where Dispatch serves
    /// the main queue: Conformance's main-executor check of them (`RuleSuite.mainExecutorChecks`),
    /// every form with and without a token, each body writing main-actor state.
    @Test(
        "C9.10 every continuation form on the main executor runs its @MainActor body on the main actor",
        arguments: Backends.all.filter { $0.name != "threads" })
    func mainExecutorForms(_ c: BackendCase) async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [name = c.name as String] in
            guard let backend = Backends.named(name) else { exit(3) }
            let forms = RuleSuite.mainExecutorChecks.filter { $0.rule == .c9_10 }
            let report = try RuleSuite.runMainExecutorChecks(backend, mainLoop: .servedByTheProcess, checks: forms)
            FileHandle.standardError.write(Data("\(report)\n".utf8))
            exit(report.passed && report.checks.count == 1 ? 0 : 1)
        }
        if let result, result.exitStatus != .exitCode(0) {
            Issue.record("\(String(decoding: result.standardErrorContent, as: UTF8.self))")
        }
    }
}
