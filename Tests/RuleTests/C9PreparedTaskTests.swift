import Testing
import TaskAPI

@Suite("C9.3 Prepared tasks")
struct C9PreparedTaskTests {
    @Test("C9.3 a prepared task is pending until started once, on the executor chosen at start", arguments: Backends.all)
    func startsOnce(_ c: BackendCase) throws {
        let backend = c.backend
        let user = UserExecutor()
        let bodies = Counter()
        let prepared = backend.prepare { () -> Bool in
            bodies.increment()
            return user.isCurrent
        }
        let early = prepared.task.map { !$0 }
        #expect(prepared.task.wait(timeout: .milliseconds(20)) == nil, "must not start before start()")
        #expect(prepared.task.status == .pending)
        #expect(!prepared.isStarted)
        try prepared.start(on: user)
        #expect(try prepared.task.settle()?.get() == true)
        #expect(try early.settle()?.get() == false, "a continuation registered before start runs")
        #expect(throws: StartError.alreadyStarted) { try prepared.start() }
        #expect(!prepared.tryStart())
        #expect(prepared.isStarted)
        #expect(bodies.count == 1)
    }

    @Test("C9.3 racing starts: exactly one wins, the body runs once", arguments: Backends.all)
    func racingStarts(_ c: BackendCase) throws {
        let backend = c.backend
        for _ in 0..<50 {
            let bodies = Counter()
            let winners = Counter()
            let prepared = backend.prepare { bodies.increment() }
            race(4) { _ in if prepared.tryStart() { winners.increment() } }
            #expect(try prepared.task.settle()?.get() == 1)
            #expect(winners.count == 1)
            #expect(bodies.count == 1)
        }
    }

    @Test("C9.3 cancelled before start: completes cancelled at once and the body never runs", arguments: Backends.all)
    func cancelBeforeStart(_ c: BackendCase) throws {
        let backend = c.backend
        let bodies = Counter()
        let prepared = backend.prepare { bodies.increment() }
        prepared.cancel()
        #expect(prepared.task.completion?.isCancelled == true)
        try prepared.start()
        #expect(throws: StartError.alreadyStarted) { try prepared.start() }

        let source = backend.makeCancellationSource()
        let viaToken = backend.prepare(token: source.token) { bodies.increment() }
        source.cancel()
        #expect(viaToken.task.completion?.isCancelled == true)
        #expect(viaToken.tryStart())
        #expect(viaToken.task.settle()?.isCancelled == true)
        #expect(bodies.count == 0)
    }

    @Test("C9.3 a prepared task dropped before start completes its task cancelled", arguments: Backends.all)
    func droppedBeforeStart(_ c: BackendCase) {
        let backend = c.backend
        let bodies = Counter()
        var prepared: PreparedTask<Int>? = backend.prepare { bodies.increment() }
        let task = prepared?.task
        let continued = task?.map { $0 + 1 }
        prepared = nil
        #expect(task?.completion?.isCancelled == true)
        #expect(continued?.settle()?.isCancelled == true)
        #expect(bodies.count == 0)
    }

    @Test("C9.3 cancelled after start: the body sees it through its token and is not cut short", arguments: Backends.all)
    func cancelAfterStart(_ c: BackendCase) throws {
        let backend = c.backend
        let entered = backend.makeSource(of: Void.self)
        let proceed = backend.makeSource(of: Void.self)
        let prepared = backend.prepare { token -> Int in
            entered.trySucceed()
            _ = proceed.task.wait(timeout: patience)
            try token.checkpoint()
            return 1
        }
        try prepared.start()
        #expect(entered.task.settle() != nil)
        prepared.cancel()
        #expect(prepared.task.status == .running, "a started body is not cut short")
        proceed.trySucceed()
        #expect(prepared.task.settle()?.isCancelled == true)
    }
}
