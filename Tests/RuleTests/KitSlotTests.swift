import TaskAPI
import Testing

/// A kit task's slot (`TaskCore`) holds, one at a time, a derived task's body until it starts, the
/// value of a success, or the error of a failure, as raw words whose every access follows Swift's
/// memory-binding rules (DESIGN.md, "The task slot's memory"). A slip there is silent in a debug
/// build: in a release build the optimizer, which assumes that memory bound to one type is never
/// read as another, may compile a release to nothing, and the slot leaks what it held. So each
/// test lets go of what the slot held and checks, through a weak reference, that its object went
/// (C8.1). Run them in a release build too: `swift test -c release --filter KitSlotTests` (and
/// `KitDerivedBodyTests`, whose tests drop a body that never ran).
@Suite struct KitSlotTests {
    /// An object whose lifetime what the slot holds extends.
    final class Capture: Sendable {}

    /// A value of three words: the slot keeps it in a box of its own.
    struct Large: Sendable {
        let capture: Capture
        let first: Int
        let second: Int
    }

    /// An error that holds an object.
    struct CapturingError: Error {
        let capture: Capture
    }

    @Test("C8.1 a success's value goes with its task: in the slot, and boxed", arguments: Backends.all)
    func valueGoesWithTask(_ c: BackendCase) throws {
        let backend = c.backend
        weak var inPlace: Capture?
        weak var boxed: Capture?
        weak var madeCompleted: Capture?
        do {
            let small = Capture()
            let large = Capture()
            let completed = Capture()
            inPlace = small
            boxed = large
            madeCompleted = completed
            let smallSource = backend.makeSource(of: Capture.self)
            let largeSource = backend.makeSource(of: Large.self)
            #expect(smallSource.trySucceed(small))
            #expect(largeSource.trySucceed(Large(capture: large, first: 1, second: 2)))
            let completedTask = backend.completed(.success(completed))
            #expect(try smallSource.task.get() === small)
            #expect(try largeSource.task.get().capture === large)
            #expect(try completedTask.get() === completed)
        }
        #expect(inPlace == nil, "a success's value in the slot outlived its task")
        #expect(boxed == nil, "a success's boxed value outlived its task")
        #expect(madeCompleted == nil, "the value of a task made completed outlived it")
    }

    @Test("C8.1 a failure's error goes with its task", arguments: Backends.all)
    func errorGoesWithTask(_ c: BackendCase) {
        let backend = c.backend
        weak var failed: Capture?
        weak var madeFailed: Capture?
        do {
            let capture = Capture()
            let completed = Capture()
            failed = capture
            madeFailed = completed
            let source = backend.makeSource(of: Int.self)
            #expect(source.tryFail(CapturingError(capture: capture)))
            let completedTask: any AsyncTask<Int> = backend.completed(.failure(CapturingError(capture: completed)))
            for (task, expected) in [(source.task, capture), (completedTask, completed)] {
                guard case .failure(let error) = task.wait(), let error = error as? CapturingError else {
                    Issue.record("a failed task did not keep its error: \(task.wait())")
                    continue
                }
                #expect(error.capture === expected)
            }
        }
        #expect(failed == nil, "a failure's error in the slot outlived its task")
        #expect(madeFailed == nil, "the error of a task made failed outlived it")
    }

    /// How a derived task's body comes to run: registered on a pending task, on a completed one
    /// (in place, `runFresh`), or under a token that can cancel it (the start's guard).
    enum Start: CaseIterable, Sendable {
        case pending, completed, guarded
    }

    @Test(
        "C8.1 a derived task's body goes once it ran, and its value with the task",
        arguments: Backends.all, Start.allCases)
    func bodyGoesOnceRun(_ c: BackendCase, _ start: Start) throws {
        let backend = c.backend
        let cancellation = backend.makeCancellationSource()
        let token = start == .guarded ? cancellation.token : .none
        weak var mapBody: Capture?
        weak var continueBody: Capture?
        var derived: [any AsyncTask<Capture>] = []
        do {
            let source = backend.makeSource(of: Int.self)
            if start == .completed { source.trySucceed(1) }
            let forMap = Capture()
            let forContinue = Capture()
            mapBody = forMap
            continueBody = forContinue
            derived = [
                source.task.map(on: backend.inlineExecutor, token: token) { _ -> Capture in
                    _ = forMap
                    return Capture()
                },
                source.task.continueWith(on: backend.inlineExecutor, token: token) { _ -> Capture in
                    _ = forContinue
                    return Capture()
                }
            ]
            if start != .completed { source.trySucceed(1) }
        }
        // The inline executor ran both bodies before `trySucceed` (or `map`) returned.
        #expect(derived.allSatisfy { $0.status == .completed })
        #expect(mapBody == nil, "a map's body outlived its run")
        #expect(continueBody == nil, "a continueWith's body outlived its run")
        weak let mapValue = try derived[0].get()
        weak let continueValue = try derived[1].get()
        #expect(mapValue != nil && continueValue != nil, "a derived task let its value go")
        derived = []
        #expect(mapValue == nil, "a map's value outlived its task")
        #expect(continueValue == nil, "a continueWith's value outlived its task")
    }
}
