import Testing
import TaskAPI
import BackendGCD

@Test func smoke() throws {
    let b = GCDBackend()
    let t = b.run { _ in 20 }.map { $0 + 1 }.flatMap { x in b.succeeded(x * 2) }
    #expect(try t.get() == 42)
    let src: any CompletionSource<Int> = b.makeSource()
    var last: any AsyncTask<Int> = src.task
    for _ in 0..<100_000 { last = last.map(on: b.inlineExecutor) { $0 + 1 } }
    src.trySucceed(0)
    #expect(try last.get() == 100_000)
    let all = b.whenAll((0..<100).map { i in b.run { _ in i } })
    #expect(try all.get() == Array(0..<100))
    let nested = b.run { _ in try b.run { _ in try b.run { _ in 1 }.get() + 1 }.get() + 1 }
    #expect(try nested.get() == 3)
}
