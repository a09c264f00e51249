import Dispatch
import Synchronization
import TaskAPI
import Testing

/// A kit backend's derived task (`map`, `continueWith`) keeps its body in its value slot until the
/// body starts (`DerivedTask`): the slot holds a value only once the task completes. A completion
/// that comes before the start (the token's, or a caller's who completes the task through its
/// public `CompletionSource` face) must take the body out and let it go, never run it, and leave
/// the slot to the value it stores; a task freed before its body starts must let the body go too.
@Suite struct KitDerivedBodyTests {
    /// An object whose lifetime a body's captures extend.
    final class Capture: Sendable {}

    @Test(
        "C1.2, C8.1 a derived task completed as a source before its body starts keeps that value and drops the body",
        arguments: Backends.all)
    func completedBeforeStart(_ c: BackendCase) throws {
        let backend = c.backend
        let source = backend.makeSource(of: Int.self)
        let ran = Mutex(0)
        weak var weakCapture: Capture?
        let derived: [any AsyncTask<Int>]
        do {
            let capture = Capture()
            weakCapture = capture
            derived = [
                source.task.map(on: backend.inlineExecutor) { value -> Int in
                    _ = capture
                    ran.withLock { $0 += 1 }
                    return value + 1
                },
                source.task.continueWith(on: backend.inlineExecutor) { _ -> Int in
                    _ = capture
                    ran.withLock { $0 += 1 }
                    return 0
                }
            ]
        }
        #expect(weakCapture != nil)
        for (index, task) in derived.enumerated() {
            let completable = try #require(
                task as? any CompletionSource<Int>, "a kit backend's derived task is its own completion source")
            #expect(completable.tryComplete(.success(-1 - index)))
        }
        #expect(weakCapture == nil, "the bodies of derived tasks completed before they started were kept")
        source.trySucceed(1)
        #expect(ran.withLock { $0 } == 0)
        #expect(try derived.map { try $0.get() } == [-1, -2])
    }

    @Test("C4.3, C8.1 a derived task's token cancelled before the start drops the body at once", arguments: Backends.all)
    func tokenDropsBody(_ c: BackendCase) throws {
        let backend = c.backend
        let cancellation = backend.makeCancellationSource()
        let source = backend.makeSource(of: String.self)
        weak var weakCapture: Capture?
        let derived: any AsyncTask<String>
        do {
            let capture = Capture()
            weakCapture = capture
            derived = source.task.map(on: backend.inlineExecutor, token: cancellation.token) { value -> String in
                _ = capture
                Issue.record("the body of a map whose token was cancelled ran")
                return value
            }
        }
        cancellation.cancel()
        guard case .cancelled = derived.wait() else {
            Issue.record("a map whose token was cancelled did not complete cancelled: \(derived.wait())")
            return
        }
        #expect(weakCapture == nil, "a cancelled map kept its body until its antecedent completed")
        source.trySucceed("late")
        #expect(derived.status == .completed)
    }

    @Test("C8.1 a derived task freed before its body starts lets the body go", arguments: Backends.all)
    func freedPendingDropsBody(_ c: BackendCase) {
        let backend = c.backend
        // An executor that drops every job (it breaks C7.3 on purpose): the node handed to it is
        // freed without having run, while it still keeps its body.
        let dropping = ClosureExecutor { _ in }
        let source = backend.makeSource(of: Int.self)
        weak var weakCapture: Capture?
        weak var weakDerived: AnyObject?
        do {
            let capture = Capture()
            weakCapture = capture
            let derived = source.task.map(on: dropping) { value -> Int in
                _ = capture
                return value
            }
            weakDerived = derived as AnyObject
        }
        #expect(weakCapture != nil)
        source.trySucceed(1)
        #expect(weakDerived == nil, "a node whose job was dropped is still alive")
        #expect(weakCapture == nil, "a node freed before its body started kept the body alive")
    }

    @Test(
        "C1.2, C2.1 a derived task's start and a caller's completion race: one completion wins, the body runs at most once",
        arguments: Backends.all)
    func startRacesCompletion(_ c: BackendCase) throws {
        let backend = c.backend
        for round in 0..<200 {
            let source = backend.makeSource(of: Int.self)
            let ran = Mutex(0)
            weak var weakCapture: Capture?
            let derived: any AsyncTask<Int>
            do {
                let capture = Capture()
                weakCapture = capture
                derived = source.task.map(on: backend.inlineExecutor) { value -> Int in
                    _ = capture
                    ran.withLock { $0 += 1 }
                    return value + 1
                }
            }
            let completable = try #require(derived as? any CompletionSource<Int>)
            let won = Mutex(false)
            DispatchQueue.concurrentPerform(iterations: 2) { side in
                if side == 0 {
                    source.trySucceed(round)
                } else {
                    won.withLock { $0 = completable.tryComplete(.success(-1)) }
                }
            }
            let value = try derived.get()
            if won.withLock({ $0 }) {
                // The caller may win before the start (the body never runs) or while the body
                // runs (it is not cut short; its result loses, C1.2).
                #expect(value == -1 && ran.withLock { $0 } <= 1, "round \(round): the caller won, yet \(value)")
            } else {
                #expect(value == round + 1 && ran.withLock { $0 } == 1, "round \(round): the body won, yet \(value)")
            }
            #expect(weakCapture == nil, "round \(round): the body outlived the race")
        }
    }
}
