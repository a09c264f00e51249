import TaskAPI
import Testing

/// C8.3: a source released pending fails its task with `TaskError.abandoned`; in debug builds the
/// error says where the source was made (the `makeSource` or `makeTask` call), and it still
/// matches `catch TaskError.abandoned` and equals `TaskError.abandoned`.
@Suite("C8.3 Where an abandoned source was made")
struct C8AbandonedOriginTests {
    @Test("C8.3 TaskError.abandoned names the line that made the source, in debug builds", arguments: Backends.all)
    func abandonedNamesItsOrigin(_ c: BackendCase) throws {
        let backend = c.backend
        var source: (any CompletionSource<Int>)? = backend.makeSource(of: Int.self); let line = #line
        let task = try #require(source?.task)
        // A source `makeTask` hands to a body that keeps it nowhere: released when the call returns.
        let byHand: any AsyncTask<String> = backend.makeTask { _ in }; let handLine = #line
        source = nil
        let error = try #require(task.settle()?.error as? TaskError)
        #expect(error == .abandoned)
        guard case .abandoned(let origin) = error else { Issue.record("not abandoned: \(error)"); return }
        #if DEBUG
        #expect(origin == SourceOrigin(fileID: #fileID, line: UInt(line)))
        #expect("\(error)".contains("C8AbandonedOriginTests.swift:\(line)"))
        #else
        #expect(origin == nil, "release builds keep no origin")
        #endif
        do {
            _ = try task.get()
            Issue.record("an abandoned task has no value")
        } catch TaskError.abandoned {
            // The pattern matches whatever the origin.
        }
        let handError = try #require(byHand.settle()?.error as? TaskError)
        guard case .abandoned(let handOrigin) = handError else { Issue.record("not abandoned: \(handError)"); return }
        #if DEBUG
        #expect(handOrigin?.line == UInt(handLine))
        #else
        #expect(handOrigin == nil)
        #endif
    }
}
