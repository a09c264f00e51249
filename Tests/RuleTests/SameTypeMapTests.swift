import TaskAPI
import Testing

/// The `map` conveniences ask a backend for a same-type task first (`mapKeepingType`): the kit
/// makes a `MapTask` of the very class it was called on, and the convenience returns it as an
/// `any AsyncTask<U>` by a cast it makes only when `U` is `Success`. Whatever path a link takes,
/// it must keep `map`'s semantics: the value transformed, a failure and a cancellation passed
/// through, a token cancelled before the start honoured.
@Suite struct SameTypeMapTests {
    struct Boom: Error {}

    @Test("C3.3 a chain of same-type maps, mixed with type-changing ones, computes what it says", arguments: Backends.all)
    func sameTypeChain(_ c: BackendCase) throws {
        let backend = c.backend
        let inline = backend.inlineExecutor
        let source = backend.makeSource(of: Int.self)
        var pending: any AsyncTask<Int> = source.task
        for _ in 0..<50 { pending = pending.map(on: inline) { $0 &+ 1 } }  // on a pending task, then fired
        let text = pending.map(on: inline) { String($0) }.map(on: inline) { $0 + "!" }
        source.trySucceed(0)
        #expect(try pending.get() == 50)
        #expect(try text.get() == "50!")
        var completed: any AsyncTask<Int> = backend.completed(.success(1))
        for _ in 0..<50 { completed = completed.map(on: inline) { $0 &* 2 } }  // on completed tasks, in place
        #expect(try completed.get() == 1 << 50)
        let onDefault = completed.map { $0 &+ 1 }.map { $0 &+ 1 }  // the default executor
        #expect(try onDefault.get() == (1 << 50) + 2)
    }

    @Test("C3.3 a failure and a cancellation pass through same-type maps unchanged", arguments: Backends.all)
    func passThrough(_ c: BackendCase) {
        let backend = c.backend
        let inline = backend.inlineExecutor
        let failing = backend.makeSource(of: Int.self)
        let failed = failing.task.map(on: inline) { $0 + 1 }.map(on: inline) { $0 + 1 }.map(on: inline) { $0 + 1 }
        failing.tryFail(Boom())
        guard case .failure(let error) = failed.wait() else {
            Issue.record("a failure did not pass through: \(failed.wait())")
            return
        }
        #expect(error is Boom)
        let cancelled = backend.completed(Completion<Int>.cancelled).map(on: inline) { $0 + 1 }.map(on: inline) { $0 + 1 }
        guard case .cancelled = cancelled.wait() else {
            Issue.record("a cancellation did not pass through: \(cancelled.wait())")
            return
        }
    }

    @Test("C4.3 a same-type map under a token cancelled before it starts never runs", arguments: Backends.all)
    func tokenHonoured(_ c: BackendCase) throws {
        let backend = c.backend
        let cancellation = backend.makeCancellationSource()
        let source = backend.makeSource(of: Int.self)
        let first = source.task.map(on: backend.inlineExecutor) { $0 + 1 }
        let second = first.map(token: cancellation.token) { _ -> Int in
            Issue.record("the body of a map whose token was cancelled ran")
            return 0
        }
        cancellation.cancel()
        guard case .cancelled = second.wait() else {
            Issue.record("a map whose token was cancelled did not complete cancelled: \(second.wait())")
            return
        }
        source.trySucceed(1)
        #expect(try first.get() == 2)
    }
}
