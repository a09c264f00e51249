import Synchronization
import TaskAPI
import Testing

/// A kit backend keeps the body of a source's first `whenComplete` on the inline executor in the
/// task itself, without a node (`SourceTask`). It must still run first, exactly once, with the
/// task's outcome, and be dropped once run: the rule checks use other shapes more often.
@Suite struct KitInlineBodyTests {
    @Test(
        "C2.4 a source's first inline body runs first, the later ones after it in order",
        arguments: Backends.all)
    func firstInlineBodyKeepsOrder(_ c: BackendCase) {
        let backend = c.backend
        let order = Mutex<[Int]>([])
        let source = backend.makeSource(of: Int.self)
        for index in 0..<4 {
            source.task.whenComplete(on: backend.inlineExecutor) { _ in order.withLock { $0.append(index) } }
        }
        source.trySucceed(7)
        source.task.whenComplete(on: backend.inlineExecutor) { _ in order.withLock { $0.append(4) } }
        #expect(order.withLock { $0 } == [0, 1, 2, 3, 4])
    }

    @Test(
        "C1.1, C8.3 a first inline body sees a failure's error, a cancellation and an abandoned source",
        arguments: Backends.all)
    func firstInlineBodySeesEachOutcome(_ c: BackendCase) {
        struct Boom: Error {}
        let backend = c.backend
        let seen = Mutex<[String]>([])
        @Sendable func record(_ completion: Completion<String>) {
            switch completion {
            case .success(let value): seen.withLock { $0.append(value) }
            case .failure(let error as TaskError) where error == .abandoned: seen.withLock { $0.append("abandoned") }
            case .failure(let error): seen.withLock { $0.append(error is Boom ? "boom" : "other") }
            case .cancelled: seen.withLock { $0.append("cancelled") }
            }
        }
        let succeeding = backend.makeSource(of: String.self)
        succeeding.task.whenComplete(on: backend.inlineExecutor) { record($0) }
        succeeding.trySucceed("value")
        let failing = backend.makeSource(of: String.self)
        failing.task.whenComplete(on: backend.inlineExecutor) { record($0) }
        failing.tryFail(Boom())
        let cancelled = backend.makeSource(of: String.self)
        cancelled.task.whenComplete(on: backend.inlineExecutor) { record($0) }
        cancelled.tryCancel()
        do {
            let dropped = backend.makeSource(of: String.self)
            dropped.task.whenComplete(on: backend.inlineExecutor) { record($0) }
        }
        #expect(seen.withLock { $0 } == ["value", "boom", "cancelled", "abandoned"])
        #expect(failing.task.completion.map { if case .failure(let error) = $0 { error is Boom } else { false } } == true)
    }

    @Test("C8.1 a first inline body and its captures go once it has run", arguments: Backends.all)
    func firstInlineBodyIsDropped(_ c: BackendCase) {
        final class Capture: Sendable {}
        let backend = c.backend
        let source = backend.makeSource(of: Int.self)
        weak var weakCapture: Capture?
        do {
            let capture = Capture()
            weakCapture = capture
            source.task.whenComplete(on: backend.inlineExecutor) { _ in _ = capture }
        }
        #expect(weakCapture != nil)
        source.trySucceed(1)
        #expect(weakCapture == nil)
    }
}
