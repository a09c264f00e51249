import BackendThreads
import Synchronization
import TaskAPI
import Testing

/// Checks specific to the threads backend: its pool, serial executors, timer thread and shutdown.
/// The contract itself (C2.7's million-link chains included) is covered by the rule tests,
/// parameterised over every backend.
@Suite struct ThreadsSmokeTests {
    @Test func basicChainAndCombinators() throws {
        let b = try ThreadsBackend(workers: 2)
        let t = b.run { _ in 20 }.map { $0 + 1 }.flatMap { x in b.succeeded(x * 2) }
        #expect(try t.get() == 42)
        let all = b.whenAll((0..<100).map { i in b.run { _ in i } })
        #expect(try all.get() == Array(0..<100))
        #expect(b.name == "threads")
    }

    /// C6.4 with a pool of 2: 16 nested blocking waits finish well within a second.
    @Test func nestedWaitsDoNotDeadlockSmallPool() throws {
        let b = try ThreadsBackend(workers: 2)
        let clock = ContinuousClock()
        let start = clock.now
        let result = try nest(b, depth: 16).get()
        #expect(result == 16)
        #expect(clock.now - start < .seconds(1))
    }

    /// Serial executors: FIFO and one job at a time, even with many workers.
    @Test func serialExecutorIsFIFOAndExclusive() throws {
        let b = try ThreadsBackend(workers: 4)
        let serial = b.makeSerialExecutor(label: "test")
        let order = Mutex<[Int]>([])
        let running = Atomic(0)
        let overlap = Atomic(false)
        let done: any CompletionSource<Void> = b.makeSource()
        let jobs = 10_000
        for i in 0..<jobs {
            serial.execute {
                if running.add(1, ordering: .relaxed).newValue > 1 { overlap.store(true, ordering: .relaxed) }
                order.withLock { $0.append(i) }
                running.subtract(1, ordering: .relaxed)
                if i == jobs - 1 { done.trySucceed() }
            }
        }
        _ = done.task.wait()
        #expect(order.withLock { $0 } == Array(0..<jobs))
        let overlapped = overlap.load(ordering: .relaxed)
        #expect(!overlapped)
    }

    /// Many serial executors on a small pool all make progress (multiplexed, not a thread each).
    @Test func manySerialExecutorsShareThePool() throws {
        let b = try ThreadsBackend(workers: 2)
        let tasks = (0..<200).map { i -> any AsyncTask<Int> in
            let serial = b.makeSerialExecutor(label: "s\(i)")
            return b.run(on: serial, token: .none) { _ in i }.map(on: serial) { $0 * 2 }
        }
        #expect(try b.whenAll(tasks).get() == (0..<200).map { $0 * 2 })
    }

    @Test func timersFireInOrderAndDisposeReleases() throws {
        let b = try ThreadsBackend(workers: 2)
        let clock = ContinuousClock()
        let start = clock.now
        try b.delay(.milliseconds(30)).get()
        #expect(clock.now - start >= .milliseconds(30))

        let pending: any CompletionSource<Int> = b.makeSource()
        let timedOut = pending.task.timeout(after: .milliseconds(10)).wait()
        #expect((timedOut.error as? TaskError) == .timedOut(.milliseconds(10)))
        #expect(pending.task.completion == nil)

        let order = Mutex<[Int]>([])
        let last: any CompletionSource<Void> = b.makeSource()
        for (i, ms) in [40, 10, 20, 30].enumerated() {
            _ = b.schedule(after: .milliseconds(ms)) {
                order.withLock { $0.append(i) }
                if ms == 40 { last.trySucceed() }
            }
        }
        _ = last.task.wait()
        #expect(order.withLock { $0 } == [1, 2, 3, 0])

        final class Payload: Sendable {}
        weak var weakPayload: Payload?
        let timer: any Disposable = {
            let payload = Payload()
            weakPayload = payload
            return b.schedule(after: .seconds(3600)) { _ = payload }
        }()
        #expect(weakPayload != nil)
        timer.dispose()
        #expect(weakPayload == nil)
    }

    @Test func cancelAfterAndTokenBeforeStart() throws {
        let b = try ThreadsBackend(workers: 2)
        let source = b.makeCancellationSource()
        let gate: any CompletionSource<Void> = b.makeSource()
        let cancelled: any CompletionSource<Void> = b.makeSource()
        _ = source.token.register { cancelled.trySucceed() }
        // The body is queued behind a job that waits for the cancellation.
        let ran = Atomic(false)
        let guarded = gate.task.continueWith(on: b.defaultExecutor, token: source.token) { _ in
            ran.store(true, ordering: .relaxed)
        }
        source.cancel(after: .milliseconds(5))
        _ = cancelled.task.wait()
        #expect(guarded.wait().isCancelled)
        gate.trySucceed()
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
    }

    @Test func waitTimeoutAndManyWaiters() throws {
        let b = try ThreadsBackend(workers: 2)
        let source: any CompletionSource<Int> = b.makeSource()
        #expect(source.task.wait(timeout: .milliseconds(5)) == nil)
        let woken = Atomic(0)
        let waiters = (0..<8).map { _ in
            b.run { _ in
                let value = source.task.wait().value
                woken.add(1, ordering: .relaxed)
                return value ?? -1
            }
        }
        source.trySucceed(7)
        #expect(try b.whenAll(waiters).get() == Array(repeating: 7, count: 8))
        #expect(woken.load(ordering: .relaxed) == 8)
    }

    @Test func awaitValue() async throws {
        let b = try ThreadsBackend(workers: 2)
        let value = try await b.run { _ in 5 }.map { $0 * 3 }.value
        #expect(value == 15)
    }

    @Test func racingCompletersHaveOneWinner() throws {
        let b = try ThreadsBackend(workers: 4)
        for _ in 0..<200 {
            let source: any CompletionSource<Int> = b.makeSource()
            let wins = Atomic(0)
            let racers = (0..<4).map { i in
                b.run { _ in if source.trySucceed(i) { wins.add(1, ordering: .relaxed) } }
            }
            _ = try b.whenAll(racers).get()
            #expect(wins.load(ordering: .relaxed) == 1)
        }
    }

    /// Dropping the backend (and everything it made) ends its threads: workers and timer.
    @Test func releasedBackendThreadsExit() throws {
        let watch: ThreadsExitWatch = try {
            let b = try ThreadsBackend(workers: 3)
            let serial = b.makeSerialExecutor(label: "s")
            let work = (0..<50).map { i in b.run { _ in i }.map(on: serial) { $0 + 1 } }
            _ = try b.whenAll(work).get()
            try b.delay(.milliseconds(1)).get()
            _ = try nest(b, depth: 6).get()
            return b.makeExitWatch()
        }()
        #expect(watch.wait(timeout: .seconds(10)))
    }

    @Test func unusedBackendStartsNoThreads() {
        let watch = ThreadsBackend().makeExitWatch()
        #expect(watch.wait(timeout: .seconds(1)))
    }
}

private func nest(_ b: ThreadsBackend, depth: Int) -> any AsyncTask<Int> {
    b.run { _ in
        depth == 0 ? 0 : try nest(b, depth: depth - 1).get() + 1
    }
}
