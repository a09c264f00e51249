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

    @Test(
        "C9.10 every continuation form on the main executor runs its @MainActor body on the main actor",
        arguments: Backends.all.filter { $0.name != "threads" })
    func mainExecutorForms(_ c: BackendCase) async {
        await #expect(processExitsWith: .success) { [name = c.name as String] in
            guard let backend = Backends.named(name) else { exit(3) }
            let entries = await MainForms.run(backend)
            exit(entries == MainForms.expected ? 0 : 1)
        }
    }
}

/// Every continuation form on the main executor, each body writing main-actor state.
@MainActor enum MainForms {
    static var entries: [String] = []
    nonisolated static let expected = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m"]

    /// Main-actor state written from a body typed `@MainActor`; `preconditionIsolated` stops the
    /// child process if the body is not in fact on the main actor.
    static func enter(_ name: String, _ main: MainExecutor) -> Int {
        MainActor.preconditionIsolated()
        entries.append(main.isCurrent ? name : "(\(name) off the main executor)")
        return entries.count
    }

    nonisolated static func run(_ backend: any TaskBackend) async -> [String] {
        let main = backend.mainExecutor
        let value = backend.succeeded(2)
        let failed = backend.failed(UnwrapError.antecedent, as: Int.self)
        let done = backend.makeSource(of: Void.self)
        let tasks: [any AsyncTask<Int>] = [
            value.continueWith(on: main) { _ in enter("a", main) },
            value.continueWithTask(on: main) { _ in backend.succeeded(enter("b", main)) },
            value.map(on: main) { enter("c", main) * $0 },
            value.flatMap(on: main, token: .none) { backend.succeeded(enter("d", main) * $0) },
            value.then(on: main) { enter("e", main) * $0 },
            failed.recover(on: main) { _ in enter("f", main) },
            failed.recoverTask(on: main) { _ in backend.succeeded(enter("g", main)) },
            failed.catch(on: main) { _ in enter("h", main) },
            value.finally(on: main) { _ in _ = enter("i", main) },
            value.finallyTask(on: main) { _ in
                _ = enter("j", main); return backend.succeeded(())
            },
            backend.run(on: main) { enter("k", main) },
            backend.runTask(on: main) { backend.succeeded(enter("l", main)) }
        ]
        // Registered last on `value`, so it runs after every body registered on it (C2.4).
        value.whenComplete(on: main) { _ in
            _ = enter("m", main)
            done.trySucceed()
        }
        guard backend.whenAll(tasks).settle() != nil, done.task.settle() != nil else { return ["hung"] }
        return await MainActor.run { entries.sorted() }
    }
}
