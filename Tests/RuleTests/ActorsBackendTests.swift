import BackendKit
import Dispatch
import ScheduleKit
import Synchronization
import TaskAPI
import Testing

@testable import BackendActors

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tests of the actors backend's own mechanisms; the shared rule tests cover the contract
/// (C2.7's million-link chains on a 512 KiB stack included). Serialized, so that these blocking
/// tests hold at most one thread of the cooperative pool at a time.
@Suite(.serialized) struct ActorsBackendTests {
    let b = ActorsBackend()

    @Test func smoke() throws {
        let t = b.run { _ in 20 }.map { $0 + 1 }.flatMap { [b] x in b.succeeded(x * 2) }
        #expect(try t.get() == 42)
        let all = b.whenAll((0..<100).map { i in b.run { _ in i } })
        #expect(try all.get() == Array(0..<100))
        let nested = b.run { [b] _ in try b.run { _ in try b.run { _ in 1 }.get() + 1 }.get() + 1 }
        #expect(try nested.get() == 3)
        #expect(b.name == "actors")
    }

    @Test func sourceStatusAndWinner() throws {
        let src: any CompletionSource<Int> = b.makeSource()
        #expect(src.task.status == .pending)
        #expect(src.tryStart())
        #expect(src.task.status == .running)
        #expect(src.trySucceed(1))
        #expect(!src.tryFail(TaskError.alreadyCompleted))
        #expect(src.task.status == .completed)
        #expect(src.task.completion?.value == 1)
        #expect(throws: TaskError.alreadyCompleted) { try src.succeed(2) }
    }

    /// C1.2: exactly one of many racing completers wins.
    @Test func racingCompleters() {
        for _ in 0..<200 {
            let src: any CompletionSource<Int> = b.makeSource()
            let wins = Atomic(0)
            let done = b.whenAll(
                (0..<4).map { i in
                    b.run { _ in if src.trySucceed(i) { wins.add(1, ordering: .relaxed) } }
                })
            _ = done.wait()
            do { let observed = wins.load(ordering: .relaxed); #expect(observed == 1) }
        }
    }

    /// C2.4: one thread registers while another completes; the serial executor sees them in order.
    @Test func registrationOrderOnSerialExecutor() {
        for round in 0..<20 {
            let serial = b.makeSerialExecutor(label: "order")
            let src: any CompletionSource<Int> = b.makeSource()
            let seen = Locked<[Int]>([])
            let count = 2_000
            let completer = b.run { _ in
                // Complete somewhere in the middle of the registrations.
                while !src.task.isCompleted && seen.withLock({ $0.count }) == 0 { src.trySucceed(round) }
            }
            for i in 0..<count {
                src.task.whenComplete(on: serial) { _ in seen.withLock { $0.append(i) } }
            }
            src.trySucceed(round)
            _ = completer.wait()
            let last = src.task.map(on: serial) { _ in () }
            _ = last.wait()
            #expect(seen.withLock { $0 } == Array(0..<count))
        }
    }

    /// C2.4 across threads: each thread's registrations keep their relative order.
    @Test func registrationOrderFromManyThreads() {
        let serial = b.makeSerialExecutor(label: "order")
        let src: any CompletionSource<Int> = b.makeSource()
        let seen = Locked<[[Int]]>(Array(repeating: [], count: 4))
        let registrars = b.whenAll(
            (0..<4).map { thread in
                b.run { _ in
                    for i in 0..<1_000 {
                        src.task.whenComplete(on: serial) { _ in seen.withLock { $0[thread].append(i) } }
                        if thread == 0 && i == 500 { src.trySucceed(0) }
                    }
                }
            })
        _ = registrars.wait()
        _ = src.task.map(on: serial) { _ in () }.wait()
        #expect(seen.withLock { $0 } == Array(repeating: Array(0..<1_000), count: 4))
    }

    /// Why the mailbox exists: hopping into an actor with a plain `Task {}` per call does not keep
    /// the order in which the calls were made. A known issue, intermittent by nature: each round
    /// starts 2,000 tasks in order from one thread, and the rounds stop at the first reordering.
    @Test func plainTaskHopsDoNotKeepOrder() async {
        actor Log {
            var entries: [Int] = []
            func append(_ i: Int) { entries.append(i) }
        }
        await withKnownIssue("Task { await actor.method() } does not preserve enqueue order", isIntermittent: true) {
            for _ in 0..<50 {
                let log = Log()
                var tasks: [Task<Void, Never>] = []
                for i in 0..<2_000 {
                    tasks.append(Task.detached { await log.append(i) })
                }
                for task in tasks { await task.value }
                let entries = await log.entries
                if entries != Array(0..<2_000) {
                    #expect(entries == Array(0..<2_000))
                    return
                }
            }
        }
    }

    /// The same calls through the task actor's mailbox keep their order, every round (C2.4).
    @Test func mailboxKeepsOrder() {
        for _ in 0..<50 {
            let serial = b.makeSerialExecutor(label: "order")
            let src: any CompletionSource<Int> = b.makeSource()
            let seen = Locked<[Int]>([])
            for i in 0..<2_000 {
                if i == 1_000 { src.trySucceed(0) }
                src.task.whenComplete(on: serial) { _ in seen.withLock { $0.append(i) } }
            }
            _ = src.task.map(on: serial) { _ in () }.wait()
            #expect(seen.withLock { $0 } == Array(0..<2_000))
        }
    }

    /// C2.3: never inside the registering or the completing call, except inline.
    @Test func continuationNotRunInsideCalls() {
        let src: any CompletionSource<Int> = b.makeSource()
        let thread = pthread_self()
        let ranHere = Atomic(false)
        let done = src.task.continueWith(on: b.defaultExecutor, token: .none) { _ in
            if pthread_equal(pthread_self(), thread) != 0 { ranHere.store(true, ordering: .relaxed) }
        }
        src.trySucceed(1)
        _ = done.wait()
        do { let observed = ranHere.load(ordering: .relaxed); #expect(!observed) }
        // Inline on a completed task: before `whenComplete` returns.
        let ran = Atomic(false)
        src.task.whenComplete(on: b.inlineExecutor) { _ in ran.store(true, ordering: .relaxed) }
        do { let observed = ran.load(ordering: .relaxed); #expect(observed) }
    }

    /// C2.5, C7.1: a user-written executor receives the job.
    @Test func userExecutorIsHonoured() throws {
        final class Counting: AsyncTaskExecutor {
            let count = Atomic(0)
            func execute(_ job: @escaping @Sendable () -> Void) {
                count.add(1, ordering: .relaxed)
                job()
            }
        }
        let user = Counting()
        let src: any CompletionSource<Int> = b.makeSource()
        var last: any AsyncTask<Int> = src.task
        for _ in 0..<1_000 { last = last.map(on: user) { $0 + 1 } }
        src.trySucceed(0)
        #expect(try last.get() == 1_000)
        do { let observed = user.count.load(ordering: .relaxed); #expect(observed == 1_000) }
    }

    @Test func longChainOnDefaultExecutor() throws {
        let src: any CompletionSource<Int> = b.makeSource()
        var last: any AsyncTask<Int> = src.task
        for _ in 0..<100_000 { last = last.map { $0 + 1 } }
        src.trySucceed(0)
        #expect(try last.get() == 100_000)
    }

    /// C6.4: blocking waits nested 16 deep in bodies on the default executor finish within 1 s.
    @Test func nestedBlockingWaits() throws {
        let b = self.b
        @Sendable func nest(_ depth: Int) -> Int {
            if depth == 0 { return 0 }
            let inner: any AsyncTask<Int> = b.run { _ in nest(depth - 1) }
            let value: Int = inner.wait().value ?? -100
            return value + 1
        }
        let clock = ContinuousClock()
        let start = clock.now
        let outer = b.whenAll((0..<4).map { _ in b.run { _ in nest(16) } })
        #expect(outer.wait(timeout: .seconds(5))?.value == [16, 16, 16, 16])
        #expect(clock.now - start < .seconds(1))
    }

    /// C6.5, C4.7: `value` awaits without blocking, and a cancelled awaiter stops promptly.
    @Test func valueAndSwiftCancellation() async throws {
        let src: any CompletionSource<Int> = b.makeSource()
        let task = src.task
        let waiter = Task.detached { try await task.value }
        let cancelled = Task.detached { try await task.value }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(task.status == .pending)
        src.trySucceed(7)
        #expect(try await waiter.value == 7)
        #expect(try await task.value == 7)
        let failed: any AsyncTask<Int> = b.failed(TaskError.emptyInput("x"))
        await #expect(throws: TaskError.emptyInput("x")) { try await failed.value }
    }

    /// Many awaiters and many waiting threads all wake (C6.3).
    @Test func manyAwaitersWake() async throws {
        let src: any CompletionSource<Int> = b.makeSource()
        let task = src.task
        let threads = b.whenAll((0..<8).map { _ in b.run { _ in try task.get() } })
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 { group.addTask { try await task.value } }
            src.trySucceed(3)
            for try await value in group { #expect(value == 3) }
        }
        #expect(try await threads.value == Array(repeating: 3, count: 8))
    }

    @Test func waitTimeout() {
        let src: any CompletionSource<Int> = b.makeSource()
        #expect(src.task.wait(timeout: .milliseconds(20)) == nil)
        src.trySucceed(1)
        #expect(src.task.wait(timeout: .milliseconds(20))?.value == 1)
    }

    /// Timers fire no earlier than asked; disposing releases the job.
    @Test func timers() throws {
        let clock = ContinuousClock()
        let start = clock.now
        try b.delay(.milliseconds(30)).get()
        #expect(clock.now - start >= .milliseconds(30))

        final class Canary: Sendable {}
        weak var weakCanary: Canary?
        let fired = Atomic(false)
        do {
            let canary = Canary()
            weakCanary = canary
            let timer = b.schedule(after: .seconds(60)) {
                _ = canary; fired.store(true, ordering: .relaxed)
            }
            timer.dispose()
        }
        #expect(weakCanary == nil)
        do { let observed = fired.load(ordering: .relaxed); #expect(!observed) }

        // The source stays referenced: released, it would fail its task at once (C8.3).
        let neverCompleted = b.makeSource(of: Int.self)
        let timedOut = neverCompleted.task.timeout(after: .milliseconds(10)).wait()
        withExtendedLifetime(neverCompleted) {}
        #expect(timedOut.error as? TaskError == .timedOut(.milliseconds(10)))
    }

    /// C5.4: a timer keeps its pool alive. A backend with a pool of its own, released with
    /// timers pending, must still fire one and dispose the other: the pool's last handle may be
    /// the sleeping Swift task, whose resumption is enqueued on the pool.
    @Test func timersOutliveTheirBackend() throws {
        let fired = Latch()
        let disposedRan = Atomic(false)
        var disposable: (any Disposable)?
        do {
            let own = try ActorsBackend(maxBlockedThreads: 4)
            _ = own.schedule(after: .milliseconds(20)) { fired.open() }
            disposable = own.schedule(after: .milliseconds(20)) { disposedRan.store(true, ordering: .relaxed) }
        }
        disposable?.dispose()
        #expect(fired.wait(until: MonotonicClock.now + 10_000_000_000))
        let ran = disposedRan.load(ordering: .relaxed)
        #expect(!ran)
    }

    /// C8.1, C8.2: completed chains release their captures; abandoned tasks are freed.
    @Test func resources() throws {
        final class Canary: Sendable {}
        weak var weakCanary: Canary?
        weak var weakTask: AnyObject?
        do {
            let canary = Canary()
            weakCanary = canary
            let src = b.makeSource(of: Int.self)
            weakTask = src
            let mapped = src.task.map(on: b.inlineExecutor) {
                _ = canary; return $0
            }
            src.trySucceed(1)
            #expect(try mapped.get() == 1)
        }
        #expect(weakCanary == nil)
        #expect(weakTask == nil)
        do {
            let pending = b.makeSource(of: Int.self)
            weakTask = pending
            pending.task.whenComplete { _ in }
        }
        #expect(weakTask == nil)
    }

    /// Cancellation before the body starts completes at once (C4.3).
    @Test func cancellation() throws {
        let cts = b.makeCancellationSource()
        let gate: any CompletionSource<Void> = b.makeSource()
        let body = gate.task.continueWith(token: cts.token) { _ in 1 }
        cts.cancel()
        #expect(body.wait().isCancelled)
        gate.trySucceed()
        let late = b.makeCancellationSource()
        late.cancel(after: .milliseconds(10))
        let delayed = b.delay(.seconds(30), token: late.token)
        #expect(delayed.wait(timeout: .seconds(5))?.isCancelled == true)
    }
}

@Suite struct ActorsBackendAsyncTests {
    let b = ActorsBackend()

    /// A token cancels a running async body through Swift cancellation, and one cancelled before
    /// the body starts keeps it from running (C4.3).
    @Test func runAsyncBridgesCancellation() throws {
        #expect(try b.runAsync { 5 }.get() == 5)
        let cts = b.makeCancellationSource()
        let started: any CompletionSource<Void> = b.makeSource()
        let sleeping = b.runAsync(token: cts.token) {
            started.trySucceed()
            try await Task.sleep(for: .seconds(60))
            return 1
        }
        _ = started.task.wait()
        #expect(sleeping.status == .running)
        cts.cancel()
        #expect(sleeping.wait(timeout: .seconds(5))?.isCancelled == true)

        let early = b.makeCancellationSource()
        early.cancel()
        let ran = Atomic(false)
        let never = b.runAsync(token: early.token) { ran.store(true, ordering: .relaxed) }
        #expect(never.wait().isCancelled)
        do { let observed = ran.load(ordering: .relaxed); #expect(!observed) }
    }
}
