import Foundation
import Testing

/// C9.1's call forms, compiled as a user's code is: a file outside the package, importing the
/// TaskAPI and BackendGCD modules of the build these tests run in, type-checked by `swiftc` in
/// Swift 6 mode with `-warn-long-expression-type-checking=200`. Inside the package, `package`
/// declarations join the overload set, so only an outside file checks what users get.
@Suite("C9.1 Call forms, compiled from outside the package")
struct C9TypeCheckTests {
    @Test("C9.1 chains of 12 links of every continuation, and mixed chains, type-check in under 200 ms each, without a warning")
    func chainsTypeCheckFast() throws {
        let result = try ExternalCompile.typecheck(ExternalCompile.chains)
        #expect(result.status == 0, "swiftc failed:\n\(result.output)")
        #expect(!result.output.contains("warning:"), "a warning (a slow expression shows as one):\n\(result.output)")
    }

    /// What must not compile, with the message that says why: a blocking wait in async code
    /// (C6.1), a task-returning body given to a value form where a task of its value is expected
    /// (C2.6, every value form), main-actor state written from a continuation on a plain executor
    /// (C9.10).
    @Test("C9.1 C2.6 misuses are rejected with a message naming the right form")
    func misusesAreRejected() throws {
        let result = try ExternalCompile.typecheck(ExternalCompile.misuses)
        #expect(result.status != 0)
        let lines = result.output.split(separator: "\n")
        for (line, message) in ExternalCompile.expectedErrors {
            #expect(
                lines.contains { $0.contains("UserCode.swift:\(line):") && $0.contains("error:") && $0.contains(message) },
                "expected on line \(line): \(message)\n\(result.output)")
        }
    }
}

/// Writes a source file and type-checks it with the toolchain's `swiftc` against this build's
/// modules.
enum ExternalCompile {
    struct Result {
        let status: Int32
        let output: String
    }

    static func typecheck(_ source: String) throws -> Result {
        let modules = try #require(modulesDirectory, "this build's Modules directory (TaskAPI.swiftmodule) is found")
        let swiftc = try #require(swiftcURL, "swiftc is on PATH")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("c9-typecheck-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("UserCode.swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = swiftc
        process.arguments = [
            "-typecheck", "-swift-version", "6", "-I", modules.path,
            "-Xfrontend", "-warn-long-expression-type-checking=200", file.path
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: output)
    }

    /// The directory holding `TaskAPI.swiftmodule` next to the running test binary: SwiftPM puts
    /// the modules of a build in `Modules` beside its products.
    static var modulesDirectory: URL? {
        let starts = [
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(),
            URL(fileURLWithPath: CommandLine.arguments[0]),
            Bundle.main.bundleURL
        ]
        for start in starts {
            var directory = start.deletingLastPathComponent()
            for _ in 0..<5 {
                let modules = directory.appendingPathComponent("Modules")
                if FileManager.default.fileExists(atPath: modules.appendingPathComponent("TaskAPI.swiftmodule").path) {
                    return modules
                }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }

    /// `swiftc` from PATH, as `swift test` found its own tools.
    static var swiftcURL: URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        return path.split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent("swiftc") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Each continuation as a link with an untyped closure doing literal arithmetic; a chain of
    /// twelve of each, after a `run { 1 }` head whose type comes from a literal too.
    static let links = [
        ".map { $0 + 1 }", ".map(on: ui) { $0 + 1 }", ".map(token: t) { $0 + 1 }", ".map(on: ui, token: t) { $0 + 1 }",
        ".then { $0 * 2 }", ".then(on: ui) { $0 * 2 }", ".then(on: ui, token: t) { $0 * 2 }",
        ".continueWith { try $0.get() + 1 }", ".continueWith(on: ui) { ($0.value ?? 0) + 1 }",
        ".continueWith(on: ui, token: t) { try $0.get() + 1 }",
        ".continueWithTask { b.succeeded(try $0.get() + 1) }", ".continueWithTask(on: ui) { _ in b.succeeded(2) }",
        ".flatMap { b.succeeded($0 + 1) }", ".flatMap(on: ui, token: t) { b.succeeded($0 * 2) }",
        ".recover { _ in 0 }", ".recover(on: ui) { _ in 1 }", ".recover(on: ui, token: t) { _ in 2 }",
        ".catch { _ in 3 }", ".catch(on: ui) { _ in 4 }", ".recoverTask { _ in b.succeeded(5) }",
        ".finally { _ in }", ".finally(on: ui) { _ in }", ".finallyTask { _ in b.succeeded(()) }",
        ".timeout(after: .seconds(1))",
        ".map(on: b.mainExecutor) { $0 + 1 }", ".map(on: b.mainExecutor, token: t) { $0 + 1 }",
        ".continueWith(on: b.mainExecutor) { ($0.value ?? 0) + 1 }", ".then(on: b.mainExecutor) { $0 + 1 }",
        ".recover(on: b.mainExecutor) { _ in 0 }", ".finally(on: b.mainExecutor) { _ in }",
        ".map(on: board) { board, value in value + 1 }", ".continueWith(on: board) { _, outcome in (outcome.value ?? 0) + 1 }"
    ]

    static let mixed = [
        ".continueWith(on: ui) { try $0.get() + 1 }", ".map { $0 + 1 }", ".then(on: ui) { $0 * 2 }",
        ".recover { _ in 0 }", ".map(on: ui) { $0 + 1 }", ".continueWith(on: b.mainExecutor) { ($0.value ?? 0) + 1 }",
        ".then { $0 + 3 }", ".catch(on: ui) { _ in 5 }", ".flatMap { b.succeeded($0 + 1) }",
        ".recoverTask { _ in b.succeeded(2) }", ".continueWithTask(on: ui) { b.succeeded(try $0.get() + 1) }",
        ".map(on: b.mainExecutor) { $0 - 1 }", ".map(on: board) { board, value in value * 2 }", ".finally { _ in }",
        ".map(on: ui, token: t) { $0 + 1 }", ".timeout(after: .seconds(1))", ".then(token: t) { $0 + 1 }"
    ]

    static let heads = [
        "b.run { 1 }", "b.run(on: ui) { 1 }", "b.run(token: t) { 1 }", "b.run(on: ui, token: t) { 1 }",
        "b.run { _ in 1 }", "b.run(on: ui) { _ in 1 }", "b.run(token: t) { token in token.isCancellationRequested ? 0 : 1 }",
        "b.run(on: b.mainExecutor) { 1 }", "b.runTask { b.succeeded(1) }", "b.runTask(on: ui, token: t) { _ in b.succeeded(1) }",
        "b.retry(attempts: 3) { _ in 1 }", "b.retryTask(attempts: 3) { b.succeeded(1) }",
        "factory.run { 1 }", "factory.run { _ in 1 }", "factory.runTask { b.succeeded(1) }",
        "factory.map(b.succeeded(0)) { $0 + 1 }", "factory.then(b.succeeded(0)) { $0 + 1 }",
        "factory.retry(attempts: 2) { 1 }", "b.succeeded(1)"
    ]

    static var chains: String {
        var functions: [String] = []
        for (index, link) in links.enumerated() {
            functions.append(
                "func chain\(index)(_ b: any TaskBackend, ui: any AsyncTaskExecutor, t: CancellationToken, board: Board) {\n"
                    + "    let result = b.run { 1 }" + String(repeating: link, count: 12) + "\n    _ = result\n}")
        }
        functions.append(
            "func mixedChain(_ b: any TaskBackend, ui: any AsyncTaskExecutor, t: CancellationToken, board: Board) {\n"
                + "    let result = b.run { 1 }" + mixed.joined(separator: "\n        ")
                + mixed.reversed().joined(separator: "\n        ") + "\n    _ = result\n}")
        for (index, head) in heads.enumerated() {
            functions.append(
                "func head\(index)(_ b: any TaskBackend, ui: any AsyncTaskExecutor, t: CancellationToken, factory: TaskFactory) {\n"
                    + "    let result = \(head)" + String(repeating: ".map(on: ui) { $0 + 1 }", count: 10) + "\n    _ = result\n}")
        }
        return prelude + functions.joined(separator: "\n\n") + "\n" + statements
    }

    static let prelude = """
        import TaskAPI
        import BackendGCD

        actor Board: PinnedActor {
            nonisolated let executor: any ActorExecutor
            var title = ""
            init(executor: any ActorExecutor) { self.executor = executor }
        }


        """

    /// Issue 24's UI code, statements, and the other call forms of C9.1 that must compile
    /// without a warning in Swift 6.
    static let statements = """

        @MainActor final class Screen {
            var text = ""
            var count = 0
            func show(_ task: any AsyncTask<Int>, backend: any TaskBackend) {
                task.continueWith(on: backend.mainExecutor) { outcome in self.text = "done" }
                task.map(on: backend.mainExecutor) { value in self.count = value; return value }
                task.then(on: backend.mainExecutor, token: .none) { value in self.count += value }
                task.recover(on: backend.mainExecutor) { _ in self.count }
                task.finally(on: backend.mainExecutor) { _ in self.text += "!" }
                task.whenComplete(on: backend.mainExecutor) { _ in self.count = 0 }
                backend.run(on: backend.mainExecutor) { self.text = "started" }
            }
        }

        extension Board {
            func show(_ task: any AsyncTask<Int>) {
                task.continueWith(on: self) { board, outcome in board.title = "\\(outcome)" }
                task.map(on: self) { board, value in board.title = "\\(value)"; return value }
            }
        }

        func statements(_ backend: any TaskBackend, task: any AsyncTask<Int>, t: CancellationToken) throws {
            let work: any AsyncTask<Void> = backend.run(token: t) { token in
                try token.checkpoint()
                print("working")
            }
            _ = work
            task.wait()
            task.wait(timeout: .seconds(1))
            try task.get()
            backend.run { 40 }
            backend.run { () -> Void in }
            task.map { $0 + 1 }
            let failed: any AsyncTask<Int> = backend.failed(CancellationError())
            let cancelled: any AsyncTask<Int> = backend.cancelled()
            let (n, s) = try backend.whenAll(failed, cancelled.map { "\\($0)" }).get()
            _ = (n, s)
            var factory = TaskFactory(backend: backend)
            factory.executor = backend.mainExecutor.executor
            factory.run { 40 }
            let prepared = factory.prepare { 40 }
            try prepared.start()
        }

        func awaiting(_ task: any AsyncTask<Int>) async throws -> Int {
            try await task.value
        }

        final class Names: Sendable {
            func append(_ name: String) {}
        }

        /// The JS-promise seed's series example as its users write it: `then` waits for the task
        /// its body returns (C2.6).
        func series(
            _ backend: any TaskBackend, countUsers: any AsyncTask<Int>, names: Names,
            getUserName: @escaping @Sendable (Int) -> any AsyncTask<String>
        ) -> any AsyncTask<any AsyncTask<Void>> {
            countUsers.then { count -> any AsyncTask<Void> in
                var task: any AsyncTask<Void> = backend.succeeded(())
                for index in 0..<count { task = task.flatMap { _ in getUserName(index) }.then { names.append($0) } }
                return task
            }
        }

        """

    /// Each misuse on a line of its own, and the message its error must contain: a blocking
    /// wait in async code (C6.1), main-actor state from a plain executor (C9.10), and every value
    /// form given a body returning a task where a task of the value is expected (C2.6): with and
    /// without the executor and the token, the body's result type written out or not, one
    /// statement or several, on the main executor, a pinned actor and a factory.
    static let misuseLines: [(code: String, message: String)] = [
        ("_ = task.wait()", "wait() blocks the thread"),
        ("let _: any AsyncTask<Int> = task.continueWith { _ in b.succeeded(1) }", "use continueWithTask, which unwraps it"),
        ("let _: any AsyncTask<Int> = task.continueWith(on: ui) { _ in b.succeeded(1) }", "use continueWithTask, which unwraps it"),
        ("let _: any AsyncTask<Int> = task.continueWith(token: t) { _ in b.succeeded(1) }", "use continueWithTask, which unwraps it"),
        ("let _: any AsyncTask<Int> = task.map { b.succeeded($0) }", "use flatMap, which unwraps it"),
        ("let _: any AsyncTask<Int> = task.map(on: ui) { b.succeeded($0) }", "use flatMap, which unwraps it"),
        ("let _: any AsyncTask<Int> = task.map(token: t) { b.succeeded($0) }", "use flatMap, which unwraps it"),
        ("let _: any AsyncTask<Int> = task.map { value -> any AsyncTask<Int> in b.succeeded(value) }", "use flatMap, which unwraps it"),
        (
            "let _: any AsyncTask<Int> = task.map { value in let next = value + 1; return b.succeeded(next) }",
            "use flatMap, which unwraps it"
        ),
        ("let _: any AsyncTask<Int> = task.then { b.succeeded($0) }", "use flatMap, which takes its value"),
        ("let _: any AsyncTask<Int> = task.then(on: ui, token: t) { b.succeeded($0) }", "use flatMap, which takes its value"),
        (
            "let _: any AsyncTask<Void> = task.then { count -> any AsyncTask<Void> in b.succeeded(()) }",
            "use flatMap, which takes its value"
        ),
        ("let _: any AsyncTask<Int> = task.recover { _ in b.succeeded(0) }", "use recoverTask, which unwraps it"),
        ("let _: any AsyncTask<Int> = task.recover(token: t) { _ in b.succeeded(0) }", "use recoverTask, which unwraps it"),
        ("let _: any AsyncTask<Int> = task.catch { _ in b.succeeded(0) }", "use recoverTask, which unwraps it"),
        ("let _: any AsyncTask<Int> = task.map(on: board) { _, value in b.succeeded(value) }", "use flatMap, which unwraps it"),
        ("let _: any AsyncTask<Int> = task.then(on: board) { _, value in b.succeeded(value) }", "use flatMap, which takes its value"),
        ("let _: any AsyncTask<Int> = task.continueWith(on: board) { _, _ in b.succeeded(1) }", "use continueWithTask, which unwraps it"),
        ("let _: any AsyncTask<Int> = task.recover(on: board) { _, _ in b.succeeded(0) }", "use recoverTask, which unwraps it"),
        ("let _: any AsyncTask<Int> = b.run { b.succeeded(1) }", "use runTask, which unwraps it"),
        ("let _: any AsyncTask<Int> = b.run { _ in b.succeeded(1) }", "use runTask, which unwraps it"),
        ("let _: any AsyncTask<Int> = b.run(on: ui) { b.succeeded(1) }", "use runTask, which unwraps it"),
        ("let _: any AsyncTask<Int> = b.run(token: t) { () -> any AsyncTask<Int> in b.succeeded(1) }", "use runTask, which unwraps it"),
        ("let _: PreparedTask<Int> = b.prepare { b.succeeded(1) }", "use prepareTask, which unwraps it"),
        ("let _: PreparedTask<Int> = b.prepare { _ in b.succeeded(1) }", "use prepareTask, which unwraps it"),
        ("let _: any AsyncTask<Int> = b.retry(attempts: 2) { b.succeeded(1) }", "use retryTask, which unwraps it"),
        ("let _: any AsyncTask<Int> = b.retry(attempts: 2) { _ in b.succeeded(1) }", "use retryTask, which unwraps it"),
        ("let _: any AsyncTask<Int> = factory.run { b.succeeded(1) }", "use runTask, which unwraps it"),
        ("let _: any AsyncTask<Int> = factory.run { _ in b.succeeded(1) }", "use runTask, which unwraps it"),
        ("let _: PreparedTask<Int> = factory.prepare { b.succeeded(1) }", "use prepareTask, which unwraps it"),
        ("let _: any AsyncTask<Int> = factory.retry(attempts: 2) { b.succeeded(1) }", "use retryTask, which unwraps it"),
        ("let _: any AsyncTask<Int> = factory.continueWith(task) { _ in b.succeeded(1) }", "use continueWithTask, which unwraps it"),
        ("let _: any AsyncTask<Int> = factory.map(task) { b.succeeded($0) }", "use flatMap, which unwraps it"),
        ("let _: any AsyncTask<Int> = factory.then(task) { b.succeeded($0) }", "use flatMap, which takes its value"),
        ("let _: any AsyncTask<Int> = factory.recover(task) { _ in b.succeeded(0) }", "use recoverTask, which unwraps it"),
        ("let _: any AsyncTask<Int> = factory.catch(task) { _ in b.succeeded(0) }", "use recoverTask, which unwraps it"),
        ("takesTask(task.map { b.succeeded($0) })", "use flatMap, which unwraps it"),
        ("let _: any AsyncTask<Int> = task.map(on: b.mainExecutor) { b.succeeded($0) }", "use flatMap, which unwraps it"),
        ("let _: any AsyncTask<Int> = task.then(on: b.mainExecutor) { b.succeeded($0) }", "use flatMap, which takes its value"),
        (
            "let _: any AsyncTask<Int> = task.continueWith(on: b.mainExecutor) { _ in b.succeeded(1) }",
            "use continueWithTask, which unwraps it"
        ),
        ("let _: any AsyncTask<Int> = task.recover(on: b.mainExecutor) { _ in b.succeeded(0) }", "use recoverTask, which unwraps it"),
        ("let _: any AsyncTask<Int> = b.run(on: b.mainExecutor) { b.succeeded(1) }", "use runTask, which unwraps it"),
        ("task.continueWith(on: ui) { _ in screen.text = \"x\" }", "main actor-isolated property 'text' can not be mutated")
    ]

    /// The prelude's lines before the first misuse.
    static let misusePrelude = """
        import TaskAPI
        import BackendGCD

        actor Board: PinnedActor {
            nonisolated let executor: any ActorExecutor
            init(executor: any ActorExecutor) { self.executor = executor }
        }
        @MainActor final class Screen { var text = "" }
        func takesTask(_ task: any AsyncTask<Int>) {}

        @MainActor
        func misuse(_ b: any TaskBackend, task: any AsyncTask<Int>, ui: any AsyncTaskExecutor, t: CancellationToken, board: Board,
                    factory: TaskFactory, screen: Screen) async {

        """

    /// Each misuse's line, and the message its error must contain.
    static var expectedErrors: [(line: Int, message: String)] {
        let first = misusePrelude.components(separatedBy: "\n").count
        return misuseLines.enumerated().map { (first + $0.offset, $0.element.message) }
    }

    static var misuses: String {
        misusePrelude + misuseLines.map { "    " + $0.code }.joined(separator: "\n") + "\n}\n"
    }
}
