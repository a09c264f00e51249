import BackendActors
import BackendGCD
import BackendKit
import BackendThreads
import Foundation
import Synchronization
import TaskAPI
import Testing

/// C6.4's decision: threads added for blocked bodies are bounded, the limit is reported once, and
/// everything still completes once unblocked. Configuration out of range is an error, never a
/// silent change.
@Suite("C6.4 Blocking limit and configuration")
struct BlockingLimitTests {
    static let names = ["gcd", "threads", "actors"]

    /// A backend of the kind `name` with at most `limit` threads for blocked bodies.
    static func limited(_ name: String, _ limit: Int) throws -> any TaskBackend {
        switch name {
        case "gcd": return try GCDBackend(maxBlockedThreads: limit)
        case "threads": return try ThreadsBackend(workers: 2, maxBlockedThreads: limit)
        default: return try ActorsBackend(maxBlockedThreads: limit)
        }
    }

    /// The process's thread count, from /proc.
    static func threadCount() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") }),
            let count = Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces))
        else { return -1 }
        return count
    }

    /// In a child process, so that other tests' threads do not blur the count.
    @Test(
        "C6.4 1,000 bodies blocked in wait() run on a bounded number of threads and all complete",
        .serialized, arguments: names)
    func blockedBodiesAreBounded(_ name: String) async {
        await #expect(processExitsWith: .success) { [name] in
            let limit = 24
            let reports = Atomic(0)
            BackendDiagnostics.onThreadLimitReached { _ in reports.add(1, ordering: .relaxed) }
            guard let backend = try? BlockingLimitTests.limited(name, limit) else { exit(3) }
            let before = BlockingLimitTests.threadCount()
            let gate = backend.makeSource(of: Int.self)
            let started = Atomic(0)
            let bodies = (0..<1_000).map { i in
                backend.run { _ in
                    started.add(1, ordering: .relaxed)
                    return try gate.task.get() + i
                }
            }
            // Wait until the limit is reached: the pool's own workers plus `limit` are blocked.
            let deadline = ContinuousClock.now + .seconds(30)
            while reports.load(ordering: .relaxed) == 0 && ContinuousClock.now < deadline {
                usleep(10_000)
            }
            let during = BlockingLimitTests.threadCount()
            gate.trySucceed(1)
            let all = backend.whenAll(bodies).settle(within: .seconds(60))
            guard reports.load(ordering: .relaxed) == 1 else { exit(4) }
            // The pool's workers (a few per core), `limit` added threads, and slack for Dispatch's
            // own helpers and timers.
            guard during - before <= limit + 16 else {
                print("threads before \(before), while blocked \(during), limit \(limit)")
                exit(5)
            }
            guard case .success(let values)? = all, values == (0..<1_000).map({ $0 + 1 }),
                started.load(ordering: .relaxed) == 1_000
            else { exit(6) }
            exit(0)
        }
    }

    /// The threads a backend of kind `name` runs bodies on besides those it adds for blocked
    /// bodies: the threads backend's `workers`, the GCD backend's drainers and the actors
    /// backend's pool, one per processor (the actors pool two at least).
    static func width(_ name: String, workers: Int) -> Int {
        switch name {
        case "threads": return workers
        case "gcd": return ThreadsBackend.processorCount
        default: return max(2, ThreadsBackend.processorCount)
        }
    }

    /// Issue 28, configurations at their limits, with blocked threads counted against the bound:
    /// with more bodies blocked in `wait()` than the backend may serve, exactly its width plus
    /// `maxBlockedThreads` of them start (no fewer: C6.4 needs those threads; no more: the
    /// bound), at the smallest bound (1) and at C6.4's (16), the threads backend with one
    /// worker, in two rounds on one backend (the second after the first's surplus threads
    /// exited). In a child process: the limit report is process-wide.
    @Test(
        "C6.4 at maxBlockedThreads 1 and 16, exactly the width plus the bound of blocked bodies run at once",
        .serialized, arguments: names, [1, 16])
    func blockedBodiesCountAgainstTheBound(_ name: String, _ limit: Int) async {
        await #expect(processExitsWith: .success) { [name, limit] in
            let workers = 1
            let made: (any TaskBackend)? =
                name == "threads"
                ? try? ThreadsBackend(workers: workers, maxBlockedThreads: limit) : try? BlockingLimitTests.limited(name, limit)
            guard let backend = made else { exit(3) }
            let expected = BlockingLimitTests.width(name, workers: workers) + limit
            // Twice on one backend: the second round comes after the first one's blocked bodies
            // returned and its surplus threads exited, so a thread counted out wrongly shows.
            for round in 0..<2 {
                let gate = backend.makeSource(of: Int.self)
                let started = Atomic(0)
                let bodies = (0..<(expected + 8)).map { i in
                    backend.run { _ in
                        started.add(1, ordering: .relaxed)
                        return try gate.task.get() + i
                    }
                }
                // Every body the bound allows starts (each waits for the gate).
                let deadline = ContinuousClock.now + .seconds(30)
                while started.load(ordering: .relaxed) < expected && ContinuousClock.now < deadline { usleep(1_000) }
                let reached = started.load(ordering: .relaxed)
                // A bound exceeded starts one more: give it 200 ms to do so wrongly.
                usleep(200_000)
                let after = started.load(ordering: .relaxed)
                gate.trySucceed(1)
                let all = backend.whenAll(bodies).settle(within: .seconds(60))
                guard reached == expected, after == expected else {
                    print(
                        "\(name) maxBlockedThreads \(limit), round \(round): \(reached) bodies started, then \(after); "
                            + "expected \(expected)")
                    exit(5)
                }
                guard case .success(let values)? = all, values == (0..<(expected + 8)).map({ $0 + 1 }) else { exit(6) }
            }
            exit(0)
        }
    }

    /// In a child process, so that other tests' threads do not blur the count. A backend with a
    /// pool of its own that was used and released must not keep that pool's threads: 30 of them
    /// left behind two or more threads each before the actors pool ended idle threads.
    @Test(
        "C6.4 30 backends with pools of their own, used and released, leave no threads behind",
        .serialized, arguments: names)
    func releasedBackendsEndTheirThreads(_ name: String) async {
        await #expect(processExitsWith: .success) { [name] in
            let before = BlockingLimitTests.threadCount()
            for round in 0..<30 {
                guard let backend = try? BlockingLimitTests.limited(name, 4) else { exit(3) }
                // Two bodies at once, so that each pool starts more than one thread.
                let bodies = [backend.run { _ in round }, backend.run { _ in round + 1 }]
                guard case .success(let values)? = backend.whenAll(bodies).settle(within: .seconds(30)),
                    values == [round, round + 1]
                else { exit(4) }
            }
            // Idle threads end within seconds (the actors pool's after two idle seconds,
            // Dispatch's own after a few): wait for the count to come down, up to 30 s.
            let slack = 8
            let deadline = ContinuousClock.now + .seconds(30)
            var now = BlockingLimitTests.threadCount()
            while now > before + slack && ContinuousClock.now < deadline {
                usleep(50_000)
                now = BlockingLimitTests.threadCount()
            }
            guard now <= before + slack else {
                print("threads before \(before), after 30 released backends \(now)")
                exit(5)
            }
            exit(0)
        }
    }

    @Test("Configuration out of range is rejected with a clear error, never changed")
    func badConfigurationThrows() throws {
        for bad in [0, -5, BlockingThreads.maximumLimit + 1] {
            #expect(throws: BackendConfigurationError.self) { try GCDBackend(maxBlockedThreads: bad) }
            #expect(throws: BackendConfigurationError.self) { try ActorsBackend(maxBlockedThreads: bad) }
            #expect(throws: BackendConfigurationError.self) { try ThreadsBackend(workers: 2, maxBlockedThreads: bad) }
        }
        for bad in [0, -5, ThreadsBackend.maximumWorkers + 1] {
            do {
                _ = try ThreadsBackend(workers: bad)
                Issue.record("ThreadsBackend(workers: \(bad)) was accepted")
            } catch {
                #expect(error.parameter == "workers" && error.value == bad)
                #expect(error.description.contains("workers must be between 1 and"))
            }
        }
        let threads = try ThreadsBackend(workers: 3, maxBlockedThreads: 16)
        #expect(threads.workerCount == 3 && threads.maxBlockedThreads == 16)
        #expect(try GCDBackend(maxBlockedThreads: 16).maxBlockedThreads == 16)
        #expect(GCDBackend().maxBlockedThreads == BlockingThreads.defaultLimit)
    }
}
