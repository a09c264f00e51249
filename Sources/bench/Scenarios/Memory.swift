import Dispatch
import Foundation
import TaskAPI

/// memory: heap bytes and Swift allocations per pending task with one continuation and per map
/// link, allocations for source + map + succeed, and whether the heap returns to its baseline
/// after 100,000 completed tasks.
enum MemoryScenario {
    static let entry = ScenarioEntry(
        name: "memory",
        summary: "heap bytes and allocations per pending task / map link; heap back at baseline after 100,000 tasks",
        run: run
    )

    static let retainedLimit = 64 * 1024

    static func run(_ context: ScenarioContext) -> [Measurement] {
        let n = context.plan.size(10_000, quick: 10_000)
        let reps = context.plan.repetitions(3, quick: 2)
        let completedCount = 100_000
        guard HeapCounters.install() else {
            Progress.note("memory: the Swift runtime has no allocation hook; allocations not counted")
            return []
        }
        defer { HeapCounters.uninstall() }
        var results: [Measurement] = []
        func add(_ name: String, _ subject: String, _ kind: Measurement.Kind, _ baseline: String?, _ unit: String,
                 _ values: [Double?], note: String? = nil) {
            let known = values.compactMap { $0 }
            results.append(Measurement(
                scenario: "memory", caseName: name, subject: subject, kind: kind, unit: unit, better: .lower,
                values: known.isEmpty ? [.nan] : known, baseline: baseline,
                note: known.isEmpty ? "not measurable on this platform" : note))
        }
        func record(_ name: String, _ subject: String, _ kind: Measurement.Kind, _ baseline: String?,
                    _ body: () -> (bytes: Double?, allocations: Double)) {
            let runs = (0...reps).map { _ in body() }.dropFirst()
            add("memory.\(name)-bytes@\(sizeLabel(n))", subject, kind, baseline, "bytes", runs.map(\.bytes))
            add("memory.\(name)-allocs@\(sizeLabel(n))", subject, kind, baseline, "allocs", runs.map(\.allocations))
        }

        Progress.note("memory: baselines")
        record("pending-task", "threads", .baseline, nil) { pendingRawPromise(n) }
        record("pending-task", "dispatch", .baseline, nil) { pendingDispatchGroup(n) }
        record("map-link", "threads", .baseline, nil) { rawPromiseChain(n) }
        record("source-map-succeed", "threads", .baseline, nil) { rawPromiseMapSucceed(n) }
        let dispatchRetained = retainedAfter { dispatchFanout(completedCount) }
        add("memory.retained-after@100k", "dispatch", .baseline, nil, "bytes", [dispatchRetained])

        for backend in context.backends {
            Progress.note("memory: \(backend.name)")
            record("pending-task", backend.name, .backend, "threads") { pendingTasks(backend, n) }
            record("map-link", backend.name, .backend, "threads") { mapChain(backend, n) }
            record("source-map-succeed", backend.name, .backend, "threads") { sourceMapSucceed(backend, n) }
            let retained = retainedAfter { completedTasks(backend, completedCount) }
            let verdict = retained.map { $0 <= Double(retainedLimit) ? "back at baseline" : "NOT back at baseline" }
            add("memory.retained-after@100k", backend.name, .backend, "dispatch", "bytes", [retained],
                note: verdict.map { "\($0) (limit \(retainedLimit / 1024) KiB)" })
        }
        return results
    }

    // MARK: backends

    static func pendingTasks(_ backend: any TaskBackend, _ n: Int) -> (bytes: Double?, allocations: Double) {
        var sources: [any CompletionSource<Int>] = []
        sources.reserveCapacity(n)
        let inline = backend.inlineExecutor
        let figures = HeapCounters.measure(per: n) {
            for _ in 0..<n {
                let source = backend.makeSource(of: Int.self)
                source.task.whenComplete(on: inline) { _ in }
                sources.append(source)
            }
        }
        for source in sources { source.trySucceed(1) }
        return figures
    }

    static func mapChain(_ backend: any TaskBackend, _ n: Int) -> (bytes: Double?, allocations: Double) {
        let source = backend.makeSource(of: Int.self)
        var task: any AsyncTask<Int> = source.task
        let inline = backend.inlineExecutor
        let figures = HeapCounters.measure(per: n) {
            for _ in 0..<n { task = task.map(on: inline) { $0 &+ 1 } }
        }
        source.trySucceed(0)
        blackHole(task.wait())
        return figures
    }

    static func sourceMapSucceed(_ backend: any TaskBackend, _ n: Int) -> (bytes: Double?, allocations: Double) {
        let inline = backend.inlineExecutor
        var results: [any AsyncTask<Int>] = []
        results.reserveCapacity(n)
        return HeapCounters.measure(per: n) {
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

    static func pendingRawPromise(_ n: Int) -> (bytes: Double?, allocations: Double) {
        var promises: [RawPromise] = []
        promises.reserveCapacity(n)
        let figures = HeapCounters.measure(per: n) {
            for _ in 0..<n {
                let promise = RawPromise()
                promise.onComplete { _ in }
                promises.append(promise)
            }
        }
        for promise in promises { promise.trySet(1) }
        return figures
    }

    static func pendingDispatchGroup(_ n: Int) -> (bytes: Double?, allocations: Double) {
        var groups: [DispatchGroup] = []
        groups.reserveCapacity(n)
        let queue = DispatchQueue(label: "bench.memory")
        let figures = HeapCounters.measure(per: n) {
            for _ in 0..<n {
                let group = DispatchGroup()
                group.enter()
                group.notify(queue: queue) {}
                groups.append(group)
            }
        }
        for group in groups { group.leave() }
        queue.sync {}
        return figures
    }

    static func rawPromiseChain(_ n: Int) -> (bytes: Double?, allocations: Double) {
        let first = RawPromise()
        var last = first
        var links: [RawPromise] = []
        links.reserveCapacity(n)
        let figures = HeapCounters.measure(per: n) {
            for _ in 0..<n {
                let next = RawPromise()
                last.onComplete { next.trySet($0 &+ 1) }
                links.append(next)
                last = next
            }
        }
        first.trySet(0)
        return figures
    }

    static func rawPromiseMapSucceed(_ n: Int) -> (bytes: Double?, allocations: Double) {
        var results: [RawPromise] = []
        results.reserveCapacity(n)
        return HeapCounters.measure(per: n) {
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

    /// Heap bytes still in use after `body` ran and everything it made was dropped (after a
    /// warm-up run, so that one-time caches and thread-local buffers are already in the baseline).
    static func retainedAfter(_ body: () -> Void) -> Double? {
        body()
        Thread.sleep(forTimeInterval: 0.05)
        guard let before = HeapCounters.bytesInUse() else { return nil }
        body()
        Thread.sleep(forTimeInterval: 0.05)
        guard let after = HeapCounters.bytesInUse() else { return nil }
        return Double(after - before)
    }
}
