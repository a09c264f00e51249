import BackendGCD
import Dispatch
import Foundation
import ScheduleKit
import TaskAPI
import Testing

// The examples of docs/guides/Migrating.md, verbatim: each seed library's README examples in
// this API. The tests below run them on every backend and check what they produce; the
// examples that write UI state run in a child process, on the main executor (C9.8, C9.10).

/// The errors the examples fail with: a seed's error values, as a Swift error.
enum SeedError: Error, Equatable {
    case failed, noUsers, undecodable
    case code(Int)
}

/// What the UI examples show, as an app's view would: main-actor state. A continuation on
/// `backend.mainExecutor` is `@MainActor`, so it writes this directly (C9.10).
@MainActor final class Screen {
    var text = ""
    var image = ""
    var lines: [String] = []
}

/// What the other examples print: a list any thread may append to, behind a lock.
final class Log: Sendable {
    private let lines = Locked<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

// SwiftTask (BFTask's Swift port): dependentTaskWith, completion values, completion sources.

/// `functionThatReturnsAtTask.dependentTaskWith { task in switch task.completionValue { ... } }`
func seed000SwitchOnOutcome(_ backend: any TaskBackend) -> any AsyncTask<String> {
    let functionThatReturnsATask: any AsyncTask<Int> = backend.run { 42 }
    return functionThatReturnsATask.continueWith { outcome in
        switch outcome {  // no .NotDone: a continuation runs once completed
        case .success(let result): return "result = \(result)"
        case .failure(let error): return "error \(error)"
        case .cancelled: return "cancelled"
        }
    }
}

/// `dependentTaskOnMainQueueWith`: a continuation on the main executor, writing the screen.
func seed000OnMain(_ backend: any TaskBackend, screen: Screen) -> any AsyncTask<Void> {
    backend.run { 42 }.continueWith(on: backend.mainExecutor) { outcome in
        screen.text = "result = \(outcome.value ?? 0)"
    }
}

/// `taskForCompletionOfAllTasks`: `whenAllSettled` (every outcome) or `whenAll` (values, fail-fast).
func seed000AllTasks(_ backend: any TaskBackend) -> any AsyncTask<[Completion<Int>]> {
    backend.whenAllSettled([backend.run { 1 }, backend.failed(SeedError.failed), backend.run { 3 }])
}

/// `SwiftTaskCompletionSource` with `setCompletionValue` / `trySetCompletionValue`, wrapping a
/// call that throws (the README's `performFetchWithTask`).
func seed000PerformFetch(_ backend: any TaskBackend, fetch: @escaping @Sendable () throws -> Bool) -> any AsyncTask<Bool> {
    let tcs = backend.makeSource(of: Bool.self)
    do {
        try tcs.succeed(try fetch())  // setResult: throws TaskError.alreadyCompleted if set
    } catch {
        tcs.tryFail(error)  // trySetError: false if already set
    }
    return tcs.task
}

// HNTask (JS promises): then / catch / finally, newTask, resolve / reject, all / allSettled / race, executors.

struct UserList: Sendable {
    let backend: any TaskBackend
    func countUsersAsync() -> any AsyncTask<Int> { backend.run { 3 } }
    func getUserNameAsync(_ index: Int) -> any AsyncTask<String> { backend.run { "user\(index)" } }
    func makeTotalUserStringAsync(_ count: Int) -> any AsyncTask<String> { backend.succeeded("\(count) users") }
}

/// The README's first example: a step returning a task or a rejection (`flatMap`), then `then` and `catch`.
func seed001CountUsers(_ userList: UserList, shown: Log) -> any AsyncTask<Void> {
    let backend = userList.backend
    return userList.countUsersAsync().flatMap { count -> any AsyncTask<String> in
        if count <= 0 {
            return backend.failed(SeedError.noUsers)  // HNTask.reject(...)
        } else {
            return userList.makeTotalUserStringAsync(count)
        }
    }.then { message in
        shown.append(message)
    }.catch { error in
        shown.append("\(error)")
    }
}

/// `HNTask.newTask { resolve, reject in }`, `HNTask.resolve`, `HNTask.reject`.
func seed001NewTask(_ backend: any TaskBackend) -> (any AsyncTask<String>, any AsyncTask<Int>, any AsyncTask<Int>) {
    let unresolvedTask = backend.makeTask { (source: any CompletionSource<String>) in
        // do some asynchronous operation, then resolve or reject
        _ = backend.schedule(after: .milliseconds(1)) { source.trySucceed("posted") }
    }
    let resolvedTask = backend.succeeded(100)
    let rejectedTask: any AsyncTask<Int> = backend.failed(SeedError.code(100))
    return (unresolvedTask, resolvedTask, rejectedTask)
}

/// Chaining: `then` returning a value, then `flatMap` returning a task (unwrapped), then the final value.
func seed001EatApples(_ backend: any TaskBackend) -> any AsyncTask<String> {
    @Sendable func eatAsync(_ food: String) -> any AsyncTask<String> {
        backend.delay(.milliseconds(3)).map { "I ate \(food)" }  // callItAfter(300) { resolve(...) }
    }
    return backend.succeeded(3).then { number in
        "\(number) apples"
    }.flatMap { string in
        eatAsync(string)
    }
}

/// Error handling: a rejection skips `then` and reaches `catch`; `finally` sees every outcome.
func seed001Errors(_ backend: any TaskBackend, log: Log) -> any AsyncTask<String> {
    backend.succeeded(-3).flatMap { number -> any AsyncTask<String> in
        number >= 0 ? backend.succeeded("\(number) apples") : backend.failed(SeedError.code(-3))
    }.then { value -> String in
        log.append("not executed")
        return value
    }.catch { error in
        if case SeedError.code(let code) = error { log.append("code \(code)") }
        return "recovered"
    }.finally { _ in
        log.append("finally")
    }
}

/// Tasks in series: a loop of `flatMap` and `then`.
func seed001Series(_ userList: UserList, names: Log) -> any AsyncTask<Void> {
    userList.countUsersAsync().flatMap { count -> any AsyncTask<Void> in
        var task: any AsyncTask<Void> = userList.backend.succeeded(())
        for index in 0..<count {
            task = task.flatMap { _ in
                userList.getUserNameAsync(index)
            }.then { name in
                names.append(name)
            }
        }
        return task
    }
}

/// The same series as HNTask's users write it, with `then`: `then` waits for the task its body
/// returns (C2.6), so the result completes after the last name, with that task as its value.
func seed001SeriesWithThen(_ userList: UserList, names: Log) -> any AsyncTask<any AsyncTask<Void>> {
    userList.countUsersAsync().then { count -> any AsyncTask<Void> in
        var task: any AsyncTask<Void> = userList.backend.succeeded(())
        for index in 0..<count {
            task = task.flatMap { _ in
                userList.getUserNameAsync(index)
            }.then { name in
                names.append(name)
            }
        }
        return task
    }
}

/// `HNTask.all`, `HNTask.allSettled`, `HNTask.race`.
func seed001Joins(_ userList: UserList) -> (any AsyncTask<[String]>, any AsyncTask<[Completion<String>]>, any AsyncTask<String>) {
    let backend = userList.backend
    let tasks = [userList.getUserNameAsync(1), userList.getUserNameAsync(3), userList.getUserNameAsync(5)]
    let all = backend.whenAll(tasks)  // values in input order; rejects at once
    let settled = backend.whenAllSettled(tasks)  // every outcome, in input order
    func setTimeoutAsync(_ delay: Duration) -> any AsyncTask<String> {
        backend.delay(delay).map { "(timeout)" }
    }
    let first = backend.race([userList.getUserNameAsync(1), setTimeoutAsync(.seconds(1))])
    return (all, settled, first)
}

/// Executors: `HNAsyncExecutor.runAsync`, `HNDispatchQueueExecutor` (any Dispatch queue).
func seed001Executors(_ userList: UserList, queue: DispatchQueue) -> (any AsyncTask<Bool>, any AsyncTask<Bool>) {
    let backend = userList.backend
    let inBackground = backend.run { backend.defaultExecutor.isCurrent }  // runAsync()
    let onQueue = DispatchQueueExecutor(queue)
    let onGivenQueue = backend.run(on: onQueue) { onQueue.isCurrent }  // HNDispatchQueueExecutor
    return (inBackground, onGivenQueue)
}

/// `HNMainQueueExecutor`: `then` on the main executor, writing the screen.
func seed001OnMain(_ userList: UserList, screen: Screen) -> any AsyncTask<Void> {
    userList.getUserNameAsync(1).then(on: userList.backend.mainExecutor) { name in
        screen.text = name  // nameLabel.text = value
    }
}

/// `HNTask.DefaultTaskExecutor.sharedExecutor = executor`: a factory's executor, here any
/// executor a caller names (a serial one, `backend.mainExecutor.executor`, your own).
func seed001DefaultExecutor(_ userList: UserList, executor: any AsyncTaskExecutor) -> any AsyncTask<Bool> {
    var factory = TaskFactory(backend: userList.backend)
    factory.executor = executor  // the default executor, set
    return factory.then(userList.getUserNameAsync(1)) { name in
        executor.isCurrent && name == "user1"
    }
}

// The .NET-style task framework: TaskFactory, kernels with cancellation tokens, schedulers, continueFor.

/// The README's view controller: `pressedGoButton` starts the useless work, `pressedCancelButton`
/// cancels it; its continuations on the main executor write the controller's state.
@MainActor final class UselessWorkController {
    let backend: any TaskBackend
    var text = ""
    private var uselessWorkCancelSource: (any CancellationSource)?

    init(backend: any TaskBackend) {
        self.backend = backend
    }

    func pressedGoButton() -> any AsyncTask<Void> {
        let source = backend.makeCancellationSource()  // TaskCancellationSource()
        uselessWorkCancelSource = source
        return doUselessWork(cancelToken: source.token)
            .continueWith(on: backend.mainExecutor) { _ in self.uselessWorkCancelSource = nil }
    }

    func pressedCancelButton() {
        guard let source = uselessWorkCancelSource else { return }
        text = "Cancelling..."
        source.cancel()
    }

    /// `doUselessWork`: a kernel spinning until cancelled, continued on the main executor.
    func doUselessWork(cancelToken: CancellationToken) -> any AsyncTask<Void> {
        let backend = self.backend
        return TaskFactory(backend: backend, token: cancelToken)  // TaskFactory.Default
            .run { cancelToken in
                while true {
                    try cancelToken.checkpoint()  // throws CancellationError once cancellation is requested
                    backend.delay(.milliseconds(1)).wait(timeout: .milliseconds(5))
                }
            }
            .continueWith(on: backend.mainExecutor) { prevTask in  // scheduler: TaskSchedulers.Main
                if prevTask.isCancelled {
                    self.text = "The operation was cancelled."
                    return
                }
                do {
                    try prevTask.get()
                } catch {
                    self.text = "Ooops! Something wrong while trying to do that."
                }
            }
    }
}

/// Task unwrapping: `continueFor` is `continueWithTask`.
func seed002DisplayImage(_ backend: any TaskBackend, screen: Screen) -> any AsyncTask<Void> {
    @Sendable func decodeImage(_ data: [UInt8]) -> any AsyncTask<String> {
        TaskFactory(backend: backend).run { () throws -> String in
            guard !data.isEmpty else { throw SeedError.undecodable }
            return "image of \(data.count) bytes"
        }
    }
    func downloadData(_ url: String) -> any AsyncTask<[UInt8]> {
        backend.succeeded([])  // Task(result: NSData())
    }
    return downloadData("https://example.com/image.png")
        .continueWithTask { decodeImage(try $0.get()) }
        .continueWith(on: backend.mainExecutor) { prevTask in
            do {
                screen.image = try prevTask.get()  // imageView.image = image
            } catch {
                screen.text = "Can't decode image."
            }
        }
}

// Swift-Async: Async<T> { }, .await(), .await { }, queues.

/// `let myTask = Async<(result: String, code: Int)> { ... }` and `myTask.await()`.
func seed003Await(_ backend: any TaskBackend) throws -> String {
    let myTask = backend.run { () -> (result: String, code: Int) in
        // Do some long running work
        return ("Success", 0)
    }
    // Do some other stuff
    // Finally, block on the result of myTask
    let (result, code) = try myTask.get()
    return code != 0 ? "Error: Got \(result)" : result
}

/// `Async<Void> { }` and `task.await()` for its effect.
func seed003Void(_ backend: any TaskBackend, log: Log) {
    let voidTask = backend.run {
        // Just do the long-running work and don't return a value
        log.append("done")
    }
    voidTask.wait()
}

/// Dependencies: `.await { transform }` is `map`; `.await(dispatch_get_main_queue()) { }` is
/// `map(on: backend.mainExecutor)`, whose body writes the screen.
func seed003Dependencies(_ backend: any TaskBackend, screen: Screen) -> any AsyncTask<[Void]> {
    let fetchData = backend.run { () -> (data: [UInt8], fromCache: Bool) in
        (Array("cached".utf8), true)  // from disk if available, else from the network
    }
    let decodeImage = fetchData.map { "image of \($0.data.count) bytes" }
    let shown = decodeImage.map(on: backend.mainExecutor) { image in
        screen.image = image  // imageView.image = $0
        screen.lines.append("Set Image")
    }
    let saveToCache = fetchData.map { input in input.fromCache ? true : !input.data.isEmpty }
    let reported = saveToCache.map(on: backend.mainExecutor) { cached in
        screen.lines.append("File is now: \(cached ? "Cached" : "Uncached")")
    }
    return backend.whenAll([shown, reported])
}

/// Member functions, implicit closures and a given queue.
struct Generator: Sendable {
    func generateDefaultObject() -> String { "default" }
    func generate(foo: String) -> String { "generated \(foo)" }
}

func seed003Forms(_ backend: any TaskBackend) -> [any AsyncTask<String>] {
    let generator = Generator()
    let memberTask = backend.run(generator.generateDefaultObject)  // Async<MyObject>(self.generateDefaultObject)
    let memberTask2 = backend.run { generator.generate(foo: "Bar") }  // Async<MyObject>(self.generate(foo: "Bar"))
    return [memberTask, memberTask2]
}

/// `Async<Void>(dispatch_get_main_queue(), myImageView.image = processedImage)`: a body on the
/// main executor is `@MainActor`.
func seed003OnMain(_ backend: any TaskBackend, screen: Screen, processedImage: String) -> any AsyncTask<Void> {
    backend.run(on: backend.mainExecutor) { screen.image = processedImage }
}

// FATask: futures with get, continuations, tasks prepared then started, main-thread hand-offs.

/// "Verkettung von 3 Tasks": a background task, a prepared task started by its completion, and
/// a continuation registered on the prepared task before it started.
func seed004Chain(_ backend: any TaskBackend, log: Log) -> any AsyncTask<Void> {
    let backgroundTask = backend.run { () -> Int in  // startBackgroundTaskWithBlock
        log.append("Task1: Background return 42")
        return 42
    }
    let nextTask = backend.prepare { () throws -> Int in  // [FABlockTask taskWithBlock:]
        let result = try backgroundTask.get() / 2  // [task get]
        log.append("Task1: Background continuation return \(result)")
        return result
    }
    let last = nextTask.task.continueWith { task in  // [nextTask continueWithBlock:]
        log.append("Task1: Background continuation with result \(task.value ?? 0)")
    }
    backgroundTask.whenComplete { _ in nextTask.tryStart() }  // [backgroundTask continueWithTask:nextTask]
    return last
}

/// "Generierung und Sortierung einer Liste": generate, then sort, then print.
func seed004Sort(_ backend: any TaskBackend) throws -> [String] {
    let task = backend.run { Set(["5", "2", "1", "4", "3"]) }
    let sorted = task.map { $0.sorted { $0.localizedCaseInsensitiveCompare($1) == .orderedAscending } }
    _ = try task.get()  // the unsorted result of task 1
    return try sorted.get()
}

/// "Vereinfachte Weitergabe an den Mainthread": `continueWithMainThreadBlock`, then
/// `startMainThreadTaskWithBlock` continued in the background and back on the main thread.
func seed004MainThread(_ backend: any TaskBackend, screen: Screen) -> any AsyncTask<Void> {
    let main = backend.mainExecutor
    let task3 = backend.run { 42 }.continueWith(on: main) { task in  // continueWithMainThreadBlock
        screen.lines.append("Task3: Mainthread response \(task.value ?? 0)")
    }
    let task4 = backend.run(on: main) { () -> Int in  // startMainThreadTaskWithBlock
        screen.lines.append("Task4: main")
        return 42
    }
    .map { $0 / 2 }  // continueWithBackgroundTask
    .map(on: main) { result in screen.lines.append("Task4: main result \(result)") }
    return backend.whenAll(voids: [task3, task4])
}

/// `performInBackground:mainThreadContinuation:`.
func seed004Perform(_ backend: any TaskBackend, screen: Screen) -> any AsyncTask<Void> {
    backend.run { 6 * 7 }.continueWith(on: backend.mainExecutor) { outcome in
        switch outcome {
        case .success(let result): screen.text = "result \(result)"
        case .failure(let error): screen.text = "error \(error)"
        case .cancelled: screen.text = "cancelled"
        }
    }
}

/// The group variants: work joins a group as it starts, and the group is waited on as a whole
/// (`dispatch_group_wait`), or notified once nothing joined is pending (`dispatch_group_notify`).
func seed004Group(_ backend: any TaskBackend, log: Log) -> any AsyncTask<Void> {
    let group = WorkGroup(backend: backend)
    let queue = DispatchQueueExecutor(DispatchQueue(label: "work"))
    group.join(backend.run(on: queue) { log.append("first") })  // startTaskWithBlock:dispatchQueue:group:
    let second = group.join(backend.run { 21 })  // startBackgroundTaskWithBlock:, in the group
    group.join(
        second.continueWith(on: queue) { task in  // continueWithBlock:dispatchQueue:group:
            log.append("second \(task.value ?? 0)")
        })
    group.wait()  // dispatch_group_wait
    group.join(backend.run { log.append("third") })
    return group.idle()  // dispatch_group_notify
}

@Suite("Migrating guide examples")
struct MigratingExampleTests {
    /// The guide says its examples are this file's, verbatim, and that they are self-contained
    /// (issue #31.6: `SeedError` was defined only here): every Swift block of
    /// docs/guides/Migrating.md is in this file, up to whitespace and comments (the formatter
    /// lays them out), so an example edited on one side alone, or one naming a type only this
    /// file defines, fails here.
    @Test("Migrating: the guide's examples are this file's, verbatim")
    func theGuidesExamplesAreThisFiles() throws {
        let here = URL(fileURLWithPath: #filePath)
        let guideURL = here.deletingLastPathComponent().appendingPathComponent("../../docs/guides/Migrating.md").standardized
        let guide = try String(contentsOf: guideURL, encoding: .utf8)
        let tests = try String(contentsOf: here, encoding: .utf8)
        func essence(_ code: some StringProtocol) -> String {
            String(code).replacing(#/\/\/[^\n]*/#, with: "").filter { !$0.isWhitespace }
        }
        let blocks = guide.matches(of: #/```swift\n((?s:.*?))```/#).map { essence($0.1) }
        #expect(blocks.count >= 6, "the guide's Swift blocks: \(blocks.count)")
        let file = essence(tests)
        for (index, block) in blocks.enumerated() {
            #expect(file.contains(block), "the guide's Swift block \(index + 1) is not in MigratingExampleTests.swift")
        }
        // The first block defines what the others use.
        #expect(blocks.first?.contains("enumSeedError:Error") == true)
    }

    @Test("Migrating: SwiftTask (seed 000) examples", arguments: Backends.all)
    func seed000(_ c: BackendCase) throws {
        let backend = c.backend
        #expect(try seed000SwitchOnOutcome(backend).settle()?.get() == "result = 42")
        #expect(try seed000AllTasks(backend).settle()?.get().map(\.kind) == [.success, .failure, .success])
        #expect(try seed000PerformFetch(backend) { true }.settle()?.get() == true)
        #expect(seed000PerformFetch(backend) { throw SeedError.failed }.settle()?.error as? SeedError == .failed)
    }

    @Test("Migrating: HNTask (seed 001) examples", arguments: Backends.all)
    func seed001(_ c: BackendCase) throws {
        let backend = c.backend
        let userList = UserList(backend: backend)
        let shown = Log()
        #expect(seed001CountUsers(userList, shown: shown).settle()?.isSuccess == true)
        #expect(shown.all == ["3 users"])
        let (unresolved, resolved, rejected) = seed001NewTask(backend)
        #expect(try unresolved.settle()?.get() == "posted")
        #expect(resolved.completion?.value == 100)
        #expect(rejected.completion?.error as? SeedError == .code(100))
        #expect(try seed001EatApples(backend).settle()?.get() == "I ate 3 apples")
        let log = Log()
        #expect(try seed001Errors(backend, log: log).settle()?.get() == "recovered")
        #expect(log.all == ["code -3", "finally"])
        let names = Log()
        #expect(seed001Series(userList, names: names).settle()?.isSuccess == true)
        #expect(names.all == ["user0", "user1", "user2"])
        let thenNames = Log()
        let seen = seed001SeriesWithThen(userList, names: thenNames).map { _ in thenNames.all }
        #expect(try seen.settle()?.get() == ["user0", "user1", "user2"], "then waited for the last name (C2.6)")
        let (all, settled, first) = seed001Joins(userList)
        #expect(try all.settle()?.get() == ["user1", "user3", "user5"])
        #expect(try settled.settle()?.get().map(\.value) == ["user1", "user3", "user5"])
        #expect(try first.settle()?.get() == "user1")
        let (inBackground, onQueue) = seed001Executors(userList, queue: DispatchQueue(label: "seed001"))
        let flags = try #require(try backend.whenAll(inBackground, onQueue).settle()?.get())
        #expect(flags == (true, true))
        let serial = backend.makeSerialExecutor(label: "seed001")
        #expect(try seed001DefaultExecutor(userList, executor: serial).settle()?.get() == true)
    }

    @Test("Migrating: Swift-Async (seed 003) examples", arguments: Backends.all)
    func seed003(_ c: BackendCase) throws {
        let backend = c.backend
        #expect(try seed003Await(backend) == "Success")
        let log = Log()
        seed003Void(backend, log: log)
        #expect(log.all == ["done"])
        let forms = try backend.whenAll(seed003Forms(backend)).settle()?.get()
        #expect(forms == ["default", "generated Bar"])
    }

    @Test("Migrating: FATask (seed 004) examples", arguments: Backends.all)
    func seed004(_ c: BackendCase) throws {
        let backend = c.backend
        let log = Log()
        #expect(seed004Chain(backend, log: log).settle()?.isSuccess == true)
        #expect(
            log.all == [
                "Task1: Background return 42",
                "Task1: Background continuation return 21",
                "Task1: Background continuation with result 21"
            ])
        #expect(try seed004Sort(backend) == ["1", "2", "3", "4", "5"])
        let grouped = Log()
        #expect(seed004Group(backend, log: grouped).settle()?.isSuccess == true)
        #expect(Set(grouped.all.prefix(2)) == ["first", "second 21"])
        #expect(grouped.all.last == "third")
    }

    /// The examples that write the screen (every seed's main-thread continuations, and seed 002's
    /// view controller), in a child process whose main queue is served, as an app's would be:
    /// GCD and actors. The threads backend's main executor needs the program's main thread
    /// (`ThreadsBackend.runMainLoop`), which a test's child process does not give; the example
    /// program runs `@MainActor` bodies on its main loop instead (C9MainExecutorTests).
    @Test("Migrating: the UI examples, on the main executor (C9.10)", arguments: Backends.all.filter { $0.name != "threads" })
    func uiExamples(_ c: BackendCase) async {
        await #expect(processExitsWith: .success) { [name = c.name as String] in
            guard let backend = Backends.named(name) else { exit(3) }
            let failed = await MigratingExampleTests.failedUIExamples(backend)
            if !failed.isEmpty { print("failed: \(failed)") }
            exit(failed.isEmpty ? 0 : 1)
        }
    }

    /// Runs each UI example on a screen of its own; the names of those whose screen is wrong.
    static func failedUIExamples(_ backend: any TaskBackend) async -> [String] {
        var failed: [String] = []
        func check<T: Sendable>(_ name: String, _ task: any AsyncTask<T>, _ ok: @MainActor () -> Bool) async {
            let settled = task.settle()?.isSuccess == true
            if !(await MainActor.run { settled && ok() }) { failed.append(name) }
        }
        let screen = { await MainActor.run { Screen() } }
        let s000 = await screen()
        await check("seed000OnMain", seed000OnMain(backend, screen: s000)) { s000.text == "result = 42" }
        let s001 = await screen()
        await check("seed001OnMain", seed001OnMain(UserList(backend: backend), screen: s001)) { s001.text == "user1" }
        let controller = await MainActor.run { UselessWorkController(backend: backend) }
        let done = await controller.pressedGoButton()
        await controller.pressedCancelButton()
        await check("seed002Buttons", done) { controller.text == "The operation was cancelled." }
        let s002 = await screen()
        await check("seed002DisplayImage", seed002DisplayImage(backend, screen: s002)) { s002.text == "Can't decode image." }
        let s003 = await screen()
        await check("seed003Dependencies", seed003Dependencies(backend, screen: s003)) {
            s003.image == "image of 6 bytes" && Set(s003.lines) == ["Set Image", "File is now: Cached"]
        }
        let s003b = await screen()
        await check("seed003OnMain", seed003OnMain(backend, screen: s003b, processedImage: "processed")) {
            s003b.image == "processed"
        }
        let s004 = await screen()
        await check("seed004MainThread", seed004MainThread(backend, screen: s004)) {
            Set(s004.lines) == ["Task3: Mainthread response 42", "Task4: main", "Task4: main result 21"]
                && s004.lines.firstIndex(of: "Task4: main")! < s004.lines.firstIndex(of: "Task4: main result 21")!
        }
        let s004b = await screen()
        await check("seed004Perform", seed004Perform(backend, screen: s004b)) { s004b.text == "result 42" }
        return failed
    }
}
