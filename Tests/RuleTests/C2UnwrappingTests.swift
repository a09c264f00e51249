import Synchronization
import TaskAPI
import Testing

/// C2.6's rule for every form that takes a body: the forms named for a task (`…Task`, `flatMap`)
/// take the outcome of the task their body returns; `then`, the promise word, waits for a task
/// its body returns and keeps it as its value; the other value forms keep what their body
/// returns, a task included, as Swift's `map` does. One test case per form and backend. (Where a
/// task of the value is expected, a value form given a task-returning body does not compile:
/// C9TypeCheckTests.)
@Suite("C2.6 One unwrapping rule")
struct C2UnwrappingTests {
    /// A form given a body that returns `inner`, and the task it makes.
    struct Form: Sendable, CustomStringConvertible {
        let description: String
        let make: @Sendable (any TaskBackend, any AsyncTask<Int>) throws -> any AsyncTask<Int>

        init(_ name: String, _ make: @escaping @Sendable (any TaskBackend, any AsyncTask<Int>) throws -> any AsyncTask<Int>) {
            description = name
            self.make = make
        }
    }

    static let unwrapping: [Form] = [
        Form("continueWithTask") { b, inner in b.succeeded(1).continueWithTask { _ in inner } },
        Form("continueWithTask(on:token:)") { b, inner in
            b.succeeded(1).continueWithTask(on: b.makeSerialExecutor(label: "c2.6"), token: .none) { _ in inner }
        },
        Form("flatMap") { b, inner in b.succeeded(1).flatMap { _ in inner } },
        Form("flatMap(token:)") { b, inner in b.succeeded(1).flatMap(token: .none) { _ in inner } },
        Form("recoverTask") { b, inner in b.failed(UnwrapError.antecedent, as: Int.self).recoverTask { _ in inner } },
        Form("recoverTask(on:)") { b, inner in
            b.failed(UnwrapError.antecedent, as: Int.self).recoverTask(on: b.defaultExecutor) { _ in inner }
        },
        Form("runTask") { b, inner in b.runTask { inner } },
        Form("runTask(on:token:) with a token") { b, inner in b.runTask(on: b.defaultExecutor, token: .none) { _ in inner } },
        Form("prepareTask, started") { b, inner in
            let prepared = b.prepareTask { inner }
            try prepared.start()
            return prepared.task
        },
        Form("prepareTask with a token, started") { b, inner in
            let prepared = b.prepareTask { _ in inner }
            try prepared.start()
            return prepared.task
        },
        Form("retryTask") { b, inner in b.retryTask(attempts: 1) { inner } },
        Form("retryTask with a token") { b, inner in b.retryTask(attempts: 1) { _ in inner } },
        Form("factory.runTask") { b, inner in TaskFactory(backend: b).runTask { inner } },
        Form("factory.continueWithTask") { b, inner in TaskFactory(backend: b).continueWithTask(b.succeeded(1)) { _ in inner } },
        Form("factory.flatMap") { b, inner in TaskFactory(backend: b).flatMap(b.succeeded(1)) { _ in inner } },
        Form("factory.recoverTask") { b, inner in
            TaskFactory(backend: b).recoverTask(b.failed(UnwrapError.antecedent, as: Int.self)) { _ in inner }
        },
        Form("factory.prepareTask, started") { b, inner in
            let prepared = TaskFactory(backend: b).prepareTask { inner }
            try prepared.start()
            return prepared.task
        },
        Form("factory.retryTask") { b, inner in TaskFactory(backend: b).retryTask(attempts: 1) { inner } },
        Form("flatMap on a pinned actor") { b, inner in
            b.succeeded(1).flatMap(on: try Board.make(b)) { _, _ in inner }
        },
        Form("continueWithTask on a pinned actor") { b, inner in
            b.succeeded(1).continueWithTask(on: try Board.make(b)) { _, _ in inner }
        },
        Form("recoverTask on a pinned actor") { b, inner in
            b.failed(UnwrapError.antecedent, as: Int.self).recoverTask(on: try Board.make(b)) { _, _ in inner }
        }
    ]

    static var unwrappingCases: [(Form, BackendCase)] {
        unwrapping.flatMap { form in Backends.all.map { (form, $0) } }
    }

    @Test(
        "C2.6 a form named for a task waits for the task its body returns and takes its outcome",
        arguments: unwrappingCases)
    func unwraps(_ form: Form, _ c: BackendCase) throws {
        let backend = c.backend
        for outcome in [Completion<Int>.success(3), .failure(UnwrapError.inner), .cancelled] {
            let inner = backend.makeSource(of: Int.self)
            let task = try form.make(backend, inner.task)
            #expect(task.wait(timeout: .milliseconds(20)) == nil, "completed before the inner task")
            inner.tryComplete(outcome)
            let result = try #require(task.settle())
            #expect(result.kind == outcome.kind)
            #expect(result.value == outcome.value)
            #expect(result.error as? UnwrapError == outcome.error as? UnwrapError)
        }
    }

    /// A form whose body returns a value, given a body that returns a task: the task is its value,
    /// as is (Swift's `map`; the compiler names the unwrapping form where a task of the value was
    /// expected, C9TypeCheckTests).
    static let keeping: [Form] = [
        Form("map") { b, inner in b.succeeded(1).map { _ in inner }.map { $0 === inner ? 1 : 0 } },
        Form("continueWith") { b, inner in b.succeeded(1).continueWith { _ in inner }.map { $0 === inner ? 1 : 0 } },
        Form("run") { b, inner in b.run { () -> any AsyncTask<Int> in inner }.map { $0 === inner ? 1 : 0 } },
        Form("prepare, started") { b, inner in
            let prepared = b.prepare { () -> any AsyncTask<Int> in inner }
            try prepared.start()
            return prepared.task.map { $0 === inner ? 1 : 0 }
        },
        Form("retry") { b, inner in b.retry(attempts: 1) { () -> any AsyncTask<Int> in inner }.map { $0 === inner ? 1 : 0 } },
        Form("factory.run") { b, inner in TaskFactory(backend: b).run { () -> any AsyncTask<Int> in inner }.map { $0 === inner ? 1 : 0 } }
    ]

    static var keepingCases: [(Form, BackendCase)] {
        keeping.flatMap { form in Backends.all.map { (form, $0) } }
    }

    @Test(
        "C2.6 a form whose body returns a value keeps a returned task as its value, pending or not",
        arguments: keepingCases)
    func keeps(_ form: Form, _ c: BackendCase) throws {
        let backend = c.backend
        let inner = backend.makeSource(of: Int.self)
        let task = try form.make(backend, inner.task)
        #expect(try task.settle()?.get() == 1, "the value is the inner task itself, still pending")
        #expect(inner.task.status == .pending)
    }

    /// `then` in each of its call forms given a body that returns `inner`, read as 1 if its value
    /// is `inner` itself. (`then(on: backend.mainExecutor)` takes the same path, `thenStep`; its
    /// body needs the main thread served: C9IsolatedContinuationTests.)
    static let waiting: [Form] = [
        Form("then") { b, inner in b.succeeded(1).then { _ in inner }.map { $0 === inner ? 1 : 0 } },
        Form("then(on:)") { b, inner in
            b.succeeded(1).then(on: b.makeSerialExecutor(label: "c2.6")) { _ in inner }.map { $0 === inner ? 1 : 0 }
        },
        Form("then(token:)") { b, inner in b.succeeded(1).then(token: .none) { _ in inner }.map { $0 === inner ? 1 : 0 } },
        Form("then with the body's result type written out") { b, inner in
            b.succeeded(1).then { value -> any AsyncTask<Int> in
                let returned = value > 0 ? inner : b.succeeded(value)
                return returned
            }.map { $0 === inner ? 1 : 0 }
        },
        Form("then on a pinned actor") { b, inner in
            b.succeeded(1).then(on: try Board.make(b)) { _, _ in inner }.map { $0 === inner ? 1 : 0 }
        },
        Form("factory.then") { b, inner in TaskFactory(backend: b).then(b.succeeded(1)) { _ in inner }.map { $0 === inner ? 1 : 0 } }
    ]

    static var waitingCases: [(Form, BackendCase)] {
        waiting.flatMap { form in Backends.all.map { (form, $0) } }
    }

    @Test(
        "C2.6 then, given a body returning a task, completes once that task has: failed or cancelled as it, or with it as its value",
        arguments: waitingCases)
    func thenWaits(_ form: Form, _ c: BackendCase) throws {
        let backend = c.backend
        for outcome in [Completion<Int>.success(3), .failure(UnwrapError.inner), .cancelled] {
            let inner = backend.makeSource(of: Int.self)
            let task = try form.make(backend, inner.task)
            #expect(task.wait(timeout: .milliseconds(20)) == nil, "completed before the task its body returned")
            inner.tryComplete(outcome)
            let result = try #require(task.settle())
            #expect(result.kind == outcome.kind)
            #expect(result.value == (outcome.isSuccess ? 1 : nil), "the value is the returned task itself")
            #expect(result.error as? UnwrapError == outcome.error as? UnwrapError)
        }
    }

    @Test("C2.6 then, given a body returning a value of a task's size that is not a task, is map", arguments: Backends.all)
    func thenOnValues(_ c: BackendCase) throws {
        let backend = c.backend
        let text = backend.succeeded(2).then { "\($0)" }.then { $0 + "!" }
        #expect(try text.settle()?.get() == "2!")
        let optional: any AsyncTask<(any AsyncTask<Int>)?> = backend.succeeded(2).then { _ in nil }
        #expect(try optional.settle()?.get() == nil)
        let pending = backend.makeSource(of: Int.self)
        let kept = backend.succeeded(2).then { _ -> (any AsyncTask<Int>)? in pending.task }
        #expect(kept.settle() != nil, "an optional task is a value: then does not wait for it")
        pending.tryComplete(.success(0))
    }

    /// The JS-promise seed's "Run Tasks in Series" (HNTask), as its users write it: a `then`
    /// whose body chains a step per user and returns the last one.
    @Test("C2.6 the JS-promise seed's series example appends every name before its then's task succeeds", arguments: Backends.all)
    func seriesExample(_ c: BackendCase) throws {
        let backend = c.backend
        let names = NameList()
        let countUsers = backend.run { 100 }
        @Sendable func getUserName(_ index: Int) -> any AsyncTask<String> { backend.run { "user\(index)" } }
        let all = countUsers.then { count -> any AsyncTask<Void> in
            var task: any AsyncTask<Void> = backend.succeeded(())
            for index in 0..<count {
                task = task.flatMap { _ in getUserName(index) }.then { name in names.append(name) }
            }
            return task
        }
        let seen = all.map { _ in names.count }
        #expect(try seen.settle()?.get() == 100, "all 100 names appended when the then's task succeeded")
        #expect(names.all == (0..<100).map { "user\($0)" })
    }
}

/// Names appended from continuations on any thread.
final class NameList: Sendable {
    private let names = Mutex<[String]>([])

    func append(_ name: String) { names.withLock { $0.append(name) } }
    var count: Int { names.withLock { $0.count } }
    var all: [String] { names.withLock { $0 } }
}

enum UnwrapError: Error, Equatable {
    case antecedent, inner
}

/// An actor pinned to a serial executor of a backend (C9.9), for the forms with an isolated body.
actor Board: PinnedActor {
    nonisolated let executor: any ActorExecutor
    var title = ""
    var entries = 0

    init(executor: any ActorExecutor) {
        self.executor = executor
    }

    /// Counts an entry named `name`, noting whether it ran on the actor's executor (C9.10).
    func enter(_ name: String) -> Int {
        entries += 1
        title += executor.isCurrent ? name : "(\(name) off the executor)"
        return entries
    }

    static func make(_ backend: any TaskBackend) throws -> Board {
        Board(executor: try #require(backend.makeActorExecutor(label: "board")))
    }
}
