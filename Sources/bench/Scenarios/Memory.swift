import Dispatch
import Foundation
import TaskAPI

/// memory: heap bytes and allocations per pending task with one continuation and per map link,
/// allocations for source + map + succeed, and whether the heap returns to its baseline after
/// 100,000 completed tasks.
enum MemoryScenario: Scenario {
    static let name = "memory"
    static let summary = "heap bytes and allocations per pending task / map link; heap back at baseline after 100,000 tasks"

    /// Heap growth per task still counted as "back at baseline": an eighth of glibc's smallest
    /// chunk (32 bytes), so leaking even one allocation per task fails clearly, while the jitter
    /// of queues and thread caches that keep their peak capacity (tens of KiB) passes.
    static let retainedBytesPerTask = 4.0
    typealias Region = HeapCounters.Region

    /// The cases and the subjects each is measured for: baselines first, then every backend.
    static let cases: [(name: String, baselines: [String], baseline: String)] = [
        ("pending-task", ["pthreads", "dispatch"], "pthreads"),
        ("map-link", ["pthreads"], "pthreads"),
        ("source-map-succeed", ["pthreads"], "pthreads")
    ]

    static func run(_ context: ScenarioContext) -> [Figure] {
        let n = context.plan.size(10_000, quick: 2_000)
        let probeCount = 1_000
        let reps = context.plan.repetitions(3, quick: 2)
        var results: [Figure] = []
        func add(
            _ name: String, _ subject: String, _ kind: Figure.Kind, _ baseline: String?, _ unit: String,
            _ values: [Double?], note: String? = nil
        ) {
            let known = values.compactMap { $0 }
            var m = Figure(
                scenario: Self.name, caseName: name, subject: subject, kind: kind, unit: unit, better: .lower,
                values: known.isEmpty ? [.nan] : known, baseline: baseline,
                note: known.isEmpty ? "could not be measured here" : note)
            // Counts, not times: `bench compare` calls them equal within 5% (allocator
            // bookkeeping and Dispatch's lazily made objects move them slightly between runs).
            m.tolerance = 0.05
            results.append(m)
        }
        let subjects = context.backends.map(\.name)
        // Allocation counts come from child processes, which only wait: run them side by side.
        var probes: [(key: String, job: @Sendable () -> Double?)] = []
        for entry in cases {
            for subject in entry.baselines + subjects where runner(case: entry.name, subject: subject) != nil {
                probes.append(
                    (
                        entry.name + "|" + subject,
                        {
                            HeapCounters.allocationsPerUnit(case: entry.name, subject: subject, count: probeCount)
                        }
                    ))
            }
        }
        Progress.note("memory: \(probes.count) allocation-count probes, \(context.plan.cores) at a time")
        let counted = runConcurrently(probes.map(\.job), width: context.plan.cores)
        var allocationsByKey: [String: Double?] = [:]
        for (probe, value) in zip(probes, counted) { allocationsByKey[probe.key] = value }
        for entry in cases {
            for subject in entry.baselines + subjects {
                guard let run = runner(case: entry.name, subject: subject) else { continue }
                let isBaseline = entry.baselines.contains(subject)
                let kind: Figure.Kind = isBaseline ? .baseline : .backend
                let baseline = isBaseline ? nil : entry.baseline
                Progress.note("memory: \(entry.name) \(subject)")
                let bytes = (0...reps).map { _ in HeapCounters.marginalBytesPerUnit(n, run) }.dropFirst()
                add("memory.\(entry.name)-bytes@\(sizeLabel(n))", subject, kind, baseline, "bytes", Array(bytes))
                let allocations = allocationsByKey[entry.name + "|" + subject] ?? nil
                add(
                    "memory.\(entry.name)-allocs@\(sizeLabel(probeCount))", subject, kind, baseline, "allocs",
                    [allocations],
                    note: "malloc calls counted by mtrace in a child process, \(probeCount) and \(2 * probeCount) units differenced")
            }
        }

        let count = context.plan.size(100_000, quick: 10_000)
        let retainedCase = "memory.retained-after@\(sizeLabel(count))"
        Progress.note("memory: heap after \(count) completed tasks")
        add(
            retainedCase, "dispatch", .baseline, nil, "bytes",
            [retainedAfter { dispatchFanout(count) }])
        for backend in context.backends {
            let retained = retainedAfter { completedTasks(backend, count) }
            let limit = retainedBytesPerTask * Double(count)
            let verdict = retained.map { $0 <= limit ? "back at baseline" : "NOT back at baseline" }
            add(
                retainedCase, backend.name, .backend, "dispatch", "bytes", [retained],
                note: verdict.map { "\($0): \(formatNumber((retained ?? 0) / Double(count))) bytes/task (limit 4)" })
        }

        // Timed-out waits leave nothing behind: heap growth over many waits that time out on one
        // task that stays pending throughout.
        let waits = context.plan.size(200_000, quick: 20_000)
        let waitCase = "memory.timed-out-waits@\(sizeLabel(waits))"
        for backend in context.backends {
            Progress.note("memory: \(waits) timed-out waits, \(backend.name)")
            let grown = timedOutWaitsGrowth(backend, waits)
            // The aim: 200,000 timed-out waits grow the heap by under 8 MB (40 bytes per wait).
            let verdict = grown.map { $0 / Double(waits) < 40 ? "back at baseline" : "NOT back at baseline" }
            add(
                waitCase, backend.name, .backend, nil, "bytes", [grown],
                note: verdict.map { "\($0): \(formatNumber((grown ?? 0) / Double(waits))) bytes/wait (limit 40)" })
        }
        return results
    }

    /// Heap growth over `n` `wait(timeout:)` calls that time out on one pending task, measured
    /// while the task is still pending (its source kept), after a warm-up round.
    static func timedOutWaitsGrowth(_ backend: any TaskBackend, _ n: Int) -> Double? {
        let source = backend.makeSource(of: Int.self)
        for _ in 0..<1_000 { blackHole(source.task.wait(timeout: .nanoseconds(1))) }
        guard let before = HeapCounters.bytesInUse() else { return nil }
        for _ in 0..<n { blackHole(source.task.wait(timeout: .nanoseconds(1))) }
        guard let after = HeapCounters.bytesInUse() else { return nil }
        source.trySucceed(0)
        return Double(after) - Double(before)
    }

    /// The code of one case for one subject: sets up, runs the measured part of `n` units inside
    /// the region it is given, then completes and drops everything.
    static func runner(case name: String, subject: String) -> ((Int, Region) -> Void)? {
        let backend = backendRegistry.first { $0.name == subject }
        switch (name, subject, backend) {
        case ("pending-task", "pthreads", _): return pendingRawPromise
        case ("pending-task", "dispatch", _): return pendingDispatchGroup
        case ("map-link", "pthreads", _): return rawPromiseChain
        case ("source-map-succeed", "pthreads", _): return rawPromiseMapSucceed
        case ("pending-task", _, let backend?): return { pendingTasks(backend, $0, $1) }
        case ("map-link", _, let backend?): return { mapChain(backend, $0, $1) }
        case ("source-map-succeed", _, let backend?): return { sourceMapSucceed(backend, $0, $1) }
        default: return nil
        }
    }

    // MARK: backends

    static func pendingTasks(_ backend: any TaskBackend, _ n: Int, _ region: Region) {
        var sources: [any CompletionSource<Int>] = []
        sources.reserveCapacity(n)
        let inline = backend.inlineExecutor
        region {
            for _ in 0..<n {
                let source = backend.makeSource(of: Int.self)
                source.task.whenComplete(on: inline) { _ in }
                sources.append(source)
            }
        }
        for source in sources { source.trySucceed(1) }
    }

    static func mapChain(_ backend: any TaskBackend, _ n: Int, _ region: Region) {
        let source = backend.makeSource(of: Int.self)
        var task: any AsyncTask<Int> = source.task
        let inline = backend.inlineExecutor
        region {
            for _ in 0..<n { task = task.map(on: inline) { $0 &+ 1 } }
        }
        source.trySucceed(0)
        blackHole(task.wait())
    }

    static func sourceMapSucceed(_ backend: any TaskBackend, _ n: Int, _ region: Region) {
        let inline = backend.inlineExecutor
        var results: [any AsyncTask<Int>] = []
        results.reserveCapacity(n)
        region {
            for _ in 0..<n {
                let source = backend.makeSource(of: Int.self)
                results.append(source.task.map(on: inline) { $0 &+ 1 })
                source.trySucceed(1)
            }
        }
    }

    static func completedTasks(_ backend: any TaskBackend, _ n: Int) {
        let tasks: [any AsyncTask<Int>] = (0..<n).map { i in backend.run { _ in i & 1 } }
        blackHole(backend.whenAll(tasks).wait())
    }

    // MARK: baselines

    static func pendingRawPromise(_ n: Int, _ region: Region) {
        var promises: [RawPromise] = []
        promises.reserveCapacity(n)
        region {
            for _ in 0..<n {
                let promise = RawPromise()
                promise.onComplete { _ in }
                promises.append(promise)
            }
        }
        for promise in promises { promise.trySet(1) }
    }

    static func pendingDispatchGroup(_ n: Int, _ region: Region) {
        var groups: [DispatchGroup] = []
        groups.reserveCapacity(n)
        let queue = DispatchQueue(label: "bench.memory")
        region {
            for _ in 0..<n {
                let group = DispatchGroup()
                group.enter()
                group.notify(queue: queue) {}
                groups.append(group)
            }
        }
        for group in groups { group.leave() }
        queue.sync {}
    }

    static func rawPromiseChain(_ n: Int, _ region: Region) {
        let first = RawPromise()
        var last = first
        var links: [RawPromise] = []
        links.reserveCapacity(n)
        region {
            for _ in 0..<n {
                let next = RawPromise()
                last.onComplete { next.trySet($0 &+ 1) }
                links.append(next)
                last = next
            }
        }
        first.trySet(0)
    }

    static func rawPromiseMapSucceed(_ n: Int, _ region: Region) {
        var results: [RawPromise] = []
        results.reserveCapacity(n)
        region {
            for _ in 0..<n {
                let promise = RawPromise()
                let mapped = RawPromise()
                promise.onComplete { mapped.trySet($0 &+ 1) }
                promise.trySet(1)
                results.append(mapped)
            }
        }
    }

    static func dispatchFanout(_ n: Int) {
        let group = DispatchGroup()
        let sum = Counter()
        for i in 0..<n { DispatchQueue.global().async(group: group) { sum.add(i & 1) } }
        group.wait()
    }

    /// Heap growth over one run of `body` (everything it made dropped again): the least of three
    /// rounds, after two warm-up runs that fill one-time caches, thread-local buffers and queues
    /// that keep their peak capacity. What each round of tasks leaves behind shows in every
    /// round; memory a runtime frees a moment late (the Swift concurrency runtime's task
    /// allocator and its idle threads, on the actors backend) showed in one round of one run and
    /// flipped the verdict between two back-to-back runs, so one round alone is not the figure.
    static func retainedAfter(_ body: () -> Void) -> Double? {
        body()
        body()
        var least: Int?
        for _ in 0..<3 {
            // Pool threads drop their last references just after the tasks complete: a short
            // pause before each reading, not a synchronization (the figure is a heap total).
            Thread.sleep(forTimeInterval: 0.05)
            guard let before = HeapCounters.bytesInUse() else { return nil }
            body()
            Thread.sleep(forTimeInterval: 0.05)
            guard let after = HeapCounters.bytesInUse() else { return nil }
            least = Swift.min(least ?? Int.max, after - before)
        }
        return least.map(Double.init)
    }
}
