import BackendGCD
import TaskAPI
import Testing

/// The README's usage example, verbatim, so that it keeps compiling and saying the truth.
@Test("README usage example runs and gives the documented answers")
func readmeExample() throws {
    let backend: any TaskBackend = GCDBackend()

    // Start work at once, like Async<T> {}; errors thrown by a body become failures.
    let download: any AsyncTask<[UInt8]> = backend.run { token in
        try token.checkpoint()  // cooperative cancellation
        return Array("hello".utf8)
    }

    // Chain on executors; a closure returning a task is unwrapped.
    let ui = backend.makeSerialExecutor(label: "ui")  // the stand-in for a main queue
    let length =
        download
        .map { $0.count }
        .flatMap { n in backend.succeeded(n * 2) }
        .recover { _ in 0 }  // failures only
    let shown = length.map(on: ui) { "\($0) bytes" }

    // Join, race, time out.
    let both = backend.whenAll([length, backend.succeeded(1)])
    let quick = shown.timeout(after: .seconds(5))

    // Produce a task by hand (Bolts' TaskCompletionSource, a promise's resolve).
    let source = backend.makeSource(of: Int.self)
    source.trySucceed(42)

    // Wait, from synchronous code or from async code.
    let text = try quick.get()  // "10 bytes"
    let pair = try both.get()  // [10, 1]

    #expect(text == "10 bytes")
    #expect(pair == [10, 1])
    #expect(source.task.completion?.value == 42)
}
