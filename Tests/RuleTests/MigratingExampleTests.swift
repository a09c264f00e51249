import Dispatch
import Foundation
import Testing
import TaskAPI
import BackendGCD

// The examples of docs/guides/Migrating.md, verbatim: each seed library's README examples in
// this API. The tests below run them on every backend and check what they produce.

enum SeedError: Error, Equatable {
    case failed, noUsers, undecodable
    case code(Int)
}

// SwiftTask (BFTask's Swift port): dependentTaskWith, completion values, completion sources.

/// `functionThatReturnsAtTask.dependentTaskWith { task in switch task.completionValue { ... } }`
func seed000SwitchOnOutcome(_ backend: any TaskBackend) -> any AsyncTask<String> {
    let functionThatReturnsATask: any AsyncTask<Int> = backend.run { 42 }
    return functionThatReturnsATask.continueWith { outcome in
        switch outcome {                       // no .NotDone: a continuation runs once completed
        case .success(let result): return "result = \(result)"
        case .failure(let error): return "error \(error)"
        case .cancelled: return "cancelled"
        }
    }
}

/// `dependentTaskOnMainQueueWith`: a continuation on the main executor.
func seed000OnMain(_ backend: any TaskBackend, ui: any Executor) -> any AsyncTask<Bool> {
    backend.run { 42 }.continueWith(on: ui) { outcome in ui.isCurrent && outcome.value == 42 }
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
        try tcs.succeed(try fetch())           // setResult: throws TaskError.alreadyCompleted if set
    } catch {
        tcs.tryFail(error)                     // trySetError: false if already set
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

/// The README's first example: `then` returning a task or a rejection, then `catch`.
func seed001CountUsers(_ userList: UserList, shown: Recorder<String>) -> any AsyncTask<Void> {
    let backend = userList.backend
    return userList.countUsersAsync().then { count -> any AsyncTask<String> in
        if count <= 0 {
            return backend.failed(SeedError.noUsers)           // HNTask.reject(...)
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

/// Chaining: `then` returning a value, then a task (unwrapped), then the final value.
func seed001EatApples(_ backend: any TaskBackend) -> any AsyncTask<String> {
    @Sendable func eatAsync(_ food: String) -> any AsyncTask<String> {
        backend.delay(.milliseconds(3)).map { "I ate \(food)" }   // callItAfter(300) { resolve(...) }
    }
    return backend.succeeded(3).then { number in
        "\(number) apples"
    }.then { string in
        eatAsync(string)
    }
}

/// Error handling: a rejection skips `then` and reaches `catch`; `finally` sees every outcome.
func seed001Errors(_ backend: any TaskBackend, log: Recorder<String>) -> any AsyncTask<String> {
    backend.succeeded(-3).then { number -> any AsyncTask<String> in
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

/// Tasks in series: a loop of `then`.
func seed001Series(_ userList: UserList, names: Recorder<String>) -> any AsyncTask<Void> {
    userList.countUsersAsync().then { count -> any AsyncTask<Void> in
        var task: any AsyncTask<Void> = userList.backend.succeeded(())
        for index in 0..<count {
            task = task.then { _ in
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
    let all = backend.whenAll(tasks)                 // values in input order; rejects at once
    let settled = backend.whenAllSettled(tasks)      // every outcome, in input order
    func setTimeoutAsync(_ delay: Duration) -> any AsyncTask<String> {
        backend.delay(delay).map { "(timeout)" }
    }
    let first = backend.race([userList.getUserNameAsync(1), setTimeoutAsync(.seconds(1))])
    return (all, settled, first)
}

/// Executors: `HNAsyncExecutor.runAsync`, `HNDispatchQueueExecutor`, `HNMainQueueExecutor`,
/// and `HNTask.DefaultTaskExecutor.sharedExecutor` (a factory's executor).
func seed001Executors(_ userList: UserList, ui: any Executor, queue: DispatchQueue) -> (any AsyncTask<Bool>, any AsyncTask<Bool>, any AsyncTask<Bool>) {
    let backend = userList.backend
    let inBackground = backend.run { !ui.isCurrent }                      // runAsync()
    let onQueue = DispatchQueueExecutor(queue)
    let onGivenQueue = backend.run(on: onQueue) { onQueue.isCurrent }     // HNDispatchQueueExecutor
    var factory = TaskFactory(backend: backend)
    factory.executor = ui                                                // the default executor, set
    let onMain = factory.continueWith(userList.getUserNameAsync(1)) { name in
        ui.isCurrent && name.value == "user1"                            // nameLabel.text = value
    }
    return (inBackground, onGivenQueue, onMain)
}

// The .NET-style task framework: TaskFactory, kernels with cancellation tokens, schedulers, continueFor.

/// `doUselessWork`: a kernel spinning until cancelled, continued on the main scheduler.
func seed002UselessWork(_ backend: any TaskBackend, cancelToken: CancellationToken, ui: any Executor) -> any AsyncTask<String> {
    let factory = TaskFactory(backend: backend, token: cancelToken)        // TaskFactory.Default
    return factory.run { cancelToken in
        while true {
            try cancelToken.checkpoint()     // throws CancellationError once cancellation is requested
            _ = backend.delay(.milliseconds(1)).wait(timeout: .milliseconds(5))
        }
    }
    .continueWith(on: ui) { prevTask in                                     // scheduler: TaskSchedulers.Main
        if prevTask.isCancelled { return "The operation was cancelled." }
        do {
            try prevTask.get()
            return "done"
        } catch {
            return "Ooops! Something wrong while trying to do that."
        }
    }
}

/// `pressedGoButton` / `pressedCancelButton`.
func seed002Buttons(_ backend: any TaskBackend, ui: any Executor) -> any AsyncTask<String> {
    let uselessWorkCancelSource = backend.makeCancellationSource()          // TaskCancellationSource()
    let shown = seed002UselessWork(backend, cancelToken: uselessWorkCancelSource.token, ui: ui)
    uselessWorkCancelSource.cancel()                                        // "Cancelling..."
    return shown
}

/// Task unwrapping: `continueFor` is `continueWithTask`.
func seed002DisplayImage(_ backend: any TaskBackend, ui: any Executor) -> any AsyncTask<String> {
    @Sendable func decodeImage(_ data: [UInt8]) -> any AsyncTask<String> {
        TaskFactory(backend: backend).run { () throws -> String in
            guard !data.isEmpty else { throw SeedError.undecodable }
            return "image of \(data.count) bytes"
        }
    }
    func downloadData(_ url: String) -> any AsyncTask<[UInt8]> {
        backend.succeeded([])                                               // Task(result: NSData())
    }
    return downloadData("https://example.com/image.png")
        .continueWithTask { decodeImage(try $0.get()) }
        .continueWith(on: ui) { prevTask in
            do {
                return try prevTask.get()                                   // imageView.image = image
            } catch {
                return "Can't decode image."
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
func seed003Void(_ backend: any TaskBackend, counter: Counter) {
    let voidTask = backend.run {
        // Just do the long-running work and don't return a value
        counter.increment()
    }
    voidTask.wait()
}

/// Dependencies: `.await { transform }` is `map`; `.await(mainQueue) { }` is `map(on: ui)`.
func seed003Dependencies(_ backend: any TaskBackend, ui: any Executor, log: Recorder<String>) -> any AsyncTask<[Void]> {
    let fetchData = backend.run { () -> (data: [UInt8], fromCache: Bool) in
        (Array("cached".utf8), true)                  // from disk if available, else from the network
    }
    let decodeImage = fetchData.map { "image of \($0.data.count) bytes" }
    let shown = decodeImage.map(on: ui) { image in log.append("Set Image: \(image)") }
    let saveToCache = fetchData.map { input in input.fromCache ? true : !input.data.isEmpty }
    let reported = saveToCache.map(on: ui) { cached in log.append("File is now: \(cached ? "Cached" : "Uncached")") }
    return backend.whenAll([shown, reported])
}

/// Member functions, implicit closures and a given queue.
struct Generator: Sendable {
    func generateDefaultObject() -> String { "default" }
    func generate(foo: String) -> String { "generated \(foo)" }
}

func seed003Forms(_ backend: any TaskBackend, ui: any Executor) -> [any AsyncTask<String>] {
    let generator = Generator()
    let memberTask = backend.run(generator.generateDefaultObject)       // Async<MyObject>(self.generateDefaultObject)
    let memberTask2 = backend.run { generator.generate(foo: "Bar") }    // Async<MyObject>(self.generate(foo: "Bar"))
    let onQueue = backend.run(on: ui) { "on the given queue" }          // Async<Void>(dispatch_get_main_queue(), ...)
    return [memberTask, memberTask2, onQueue]
}

// FATask: futures with get, continuations, tasks prepared then started, main-thread hand-offs.

/// "Verkettung von 3 Tasks": a background task, a prepared task started by its completion, and
/// a continuation registered on the prepared task before it started.
func seed004Chain(_ backend: any TaskBackend, log: Recorder<String>) -> any AsyncTask<Void> {
    let backgroundTask = backend.run { () -> Int in                   // startBackgroundTaskWithBlock
        log.append("Task1: Background return 42")
        return 42
    }
    let nextTask = backend.prepare { () throws -> Int in              // [FABlockTask taskWithBlock:]
        let result = try backgroundTask.get() / 2                     // [task get]
        log.append("Task1: Background continuation return \(result)")
        return result
    }
    let last = nextTask.task.continueWith { task in                   // [nextTask continueWithBlock:]
        log.append("Task1: Background continuation with result \(task.value ?? 0)")
    }
    backgroundTask.whenComplete { _ in nextTask.tryStart() }          // [backgroundTask continueWithTask:nextTask]
    return last
}

/// "Generierung und Sortierung einer Liste": generate, then sort, then print.
func seed004Sort(_ backend: any TaskBackend) throws -> [String] {
    let task = backend.run { Set(["5", "2", "1", "4", "3"]) }
    let sorted = task.map { $0.sorted { $0.localizedCaseInsensitiveCompare($1) == .orderedAscending } }
    _ = try task.get()                                                // the unsorted result of task 1
    return try sorted.get()
}

/// "Vereinfachte Weitergabe an den Mainthread": `continueWithMainThreadBlock`, then
/// `startMainThreadTaskWithBlock` continued in the background and back on the main thread.
func seed004MainThread(_ backend: any TaskBackend, ui: any Executor) -> any AsyncTask<Int> {
    let task3 = backend.run { 42 }.continueWith(on: ui) { task in task.value ?? 0 }
    let task4 = backend.run(on: ui) { 42 }                            // startMainThreadTaskWithBlock
        .map { $0 / 2 }                                               // continueWithBackgroundTask
        .map(on: ui) { $0 }                                           // continueWithMainThreadBlock
    return backend.whenAll(task3, task4).map { $0 + $1 }
}

/// `performInBackground:mainThreadContinuation:`.
func seed004Perform(_ backend: any TaskBackend, ui: any Executor) -> any AsyncTask<String> {
    backend.run { 6 * 7 }.continueWith(on: ui) { outcome in
        switch outcome {
        case .success(let result): return "result \(result)"
        case .failure(let error): return "error \(error)"
        case .cancelled: return "cancelled"
        }
    }
}

@Suite("Migrating guide examples")
struct MigratingExampleTests {
    @Test("Migrating: SwiftTask (seed 000) examples", arguments: Backends.all)
    func seed000(_ c: BackendCase) throws {
        let backend = c.backend
        let ui = backend.makeSerialExecutor(label: "ui")
        #expect(try seed000SwitchOnOutcome(backend).settle()?.get() == "result = 42")
        #expect(try seed000OnMain(backend, ui: ui).settle()?.get() == true)
        #expect(try seed000AllTasks(backend).settle()?.get().map(\.kind) == [.success, .failure, .success])
        #expect(try seed000PerformFetch(backend) { true }.settle()?.get() == true)
        #expect(seed000PerformFetch(backend) { throw SeedError.failed }.settle()?.error as? SeedError == .failed)
    }

    @Test("Migrating: HNTask (seed 001) examples", arguments: Backends.all)
    func seed001(_ c: BackendCase) throws {
        let backend = c.backend
        let ui = backend.makeSerialExecutor(label: "ui")
        let userList = UserList(backend: backend)
        let shown = Recorder<String>()
        #expect(seed001CountUsers(userList, shown: shown).settle()?.isSuccess == true)
        #expect(shown.all == ["3 users"])
        let (unresolved, resolved, rejected) = seed001NewTask(backend)
        #expect(try unresolved.settle()?.get() == "posted")
        #expect(resolved.completion?.value == 100)
        #expect(rejected.completion?.error as? SeedError == .code(100))
        #expect(try seed001EatApples(backend).settle()?.get() == "I ate 3 apples")
        let log = Recorder<String>()
        #expect(try seed001Errors(backend, log: log).settle()?.get() == "recovered")
        #expect(log.all == ["code -3", "finally"])
        let names = Recorder<String>()
        #expect(seed001Series(userList, names: names).settle()?.isSuccess == true)
        #expect(names.all == ["user0", "user1", "user2"])
        let (all, settled, first) = seed001Joins(userList)
        #expect(try all.settle()?.get() == ["user1", "user3", "user5"])
        #expect(try settled.settle()?.get().map(\.value) == ["user1", "user3", "user5"])
        #expect(try first.settle()?.get() == "user1")
        let (inBackground, onQueue, onMain) = seed001Executors(userList, ui: ui, queue: DispatchQueue(label: "seed001"))
        let flags = try #require(try backend.whenAll(inBackground, onQueue, onMain).settle()?.get())
        #expect(flags == (true, true, true))
    }

    @Test("Migrating: task framework (seed 002) examples", arguments: Backends.all)
    func seed002(_ c: BackendCase) throws {
        let backend = c.backend
        let ui = backend.makeSerialExecutor(label: "ui")
        #expect(try seed002Buttons(backend, ui: ui).settle()?.get() == "The operation was cancelled.")
        #expect(try seed002DisplayImage(backend, ui: ui).settle()?.get() == "Can't decode image.")
    }

    @Test("Migrating: Swift-Async (seed 003) examples", arguments: Backends.all)
    func seed003(_ c: BackendCase) throws {
        let backend = c.backend
        let ui = backend.makeSerialExecutor(label: "ui")
        #expect(try seed003Await(backend) == "Success")
        let counter = Counter()
        seed003Void(backend, counter: counter)
        #expect(counter.count == 1)
        let log = Recorder<String>()
        #expect(seed003Dependencies(backend, ui: ui, log: log).settle()?.isSuccess == true)
        #expect(Set(log.all) == ["Set Image: image of 6 bytes", "File is now: Cached"])
        let forms = try backend.whenAll(seed003Forms(backend, ui: ui)).settle()?.get()
        #expect(forms == ["default", "generated Bar", "on the given queue"])
    }

    @Test("Migrating: FATask (seed 004) examples", arguments: Backends.all)
    func seed004(_ c: BackendCase) throws {
        let backend = c.backend
        let ui = backend.makeSerialExecutor(label: "ui")
        let log = Recorder<String>()
        #expect(seed004Chain(backend, log: log).settle()?.isSuccess == true)
        #expect(log.all == [
            "Task1: Background return 42",
            "Task1: Background continuation return 21",
            "Task1: Background continuation with result 21",
        ])
        #expect(try seed004Sort(backend) == ["1", "2", "3", "4", "5"])
        #expect(try seed004MainThread(backend, ui: ui).settle()?.get() == 63)
        #expect(try seed004Perform(backend, ui: ui).settle()?.get() == "result 42")
    }

    /// The same examples with `backend.mainExecutor` as `ui`, in a child process whose main queue
    /// is served (as an app's would be): GCD and actors.
    @Test("Migrating: the examples on the main executor", arguments: Backends.all.filter { $0.name != "threads" })
    func onMainExecutor(_ c: BackendCase) async {
        await #expect(processExitsWith: .success) { [name = c.name as String] in
            guard let backend = Backends.named(name) else { exit(3) }
            let ui = backend.mainExecutor
            let results: [Bool] = [
                seed000OnMain(backend, ui: ui).settle()?.value == true,
                seed002Buttons(backend, ui: ui).settle()?.value == "The operation was cancelled.",
                seed004MainThread(backend, ui: ui).settle()?.value == 63,
                seed004Perform(backend, ui: ui).settle()?.value == "result 42",
            ]
            exit(results.allSatisfy { $0 } ? 0 : 1)
        }
    }
}
