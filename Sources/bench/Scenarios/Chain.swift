import TaskAPI

/// chain: the cost of one `map` link, on an already-completed task (inline and default
/// executor) and on a pending source completed once the chain is built; ns per link.
enum ChainScenario {
    static let entry = ScenarioEntry(
        name: "chain",
        summary: "map links on a completed task (inline, default executor) and on a pending source then fired; ns/link",
        run: run
    )

    /// One run of a case: seconds for `n` links, and whether the chain's value was right.
    typealias Body = (_ n: Int) -> (seconds: Double, ok: Bool)

    static func run(_ context: ScenarioContext) -> [Measurement] {
        let plan = context.plan
        let n = plan.size(1_000_000, quick: 100_000)
        let reps = plan.repetitions(3, quick: 2)
        var results: [Measurement] = []
        /// A warm-up at a tenth of the size, then as many runs (and as large) as the budget allows.
        func measure(_ name: String, _ subject: String, _ kind: Measurement.Kind, _ baseline: String?,
                     _ body: Body) {
            let warm = body(n / 10)
            let (size, count) = plan.fit(nominal: n, floor: n / 10, repetitions: reps,
                                         secondsPerItem: warm.seconds / Double(n / 10))
            let runs = (0..<count).map { _ in body(size) }
            var m = Measurement(scenario: "chain", caseName: "chain.\(name)@\(sizeLabel(n))", subject: subject,
                                kind: kind, unit: "ns/link", better: .lower,
                                values: runs.map { $0.seconds * 1e9 / Double(size) }, baseline: baseline)
            var notes: [String] = []
            if size != n {
                m.size = size
                notes.append("measured at \(size) links to fit the time budget")
            }
            if !(runs + [warm]).allSatisfy(\.ok) { notes.append("a chain gave a wrong value") }
            m.note = notes.isEmpty ? nil : notes.joined(separator: "; ")
            results.append(m)
        }

        Progress.note("chain: baselines (closure loop, raw Dispatch chain), \(n) links")
        measure("completed-inline", "closure", .baseline, nil) { (closureChainSeconds($0), true) }
        measure("pending-inline", "closure", .baseline, nil) { (closureChainSeconds($0), true) }
        measure("completed-default", "dispatch", .baseline, nil) { (dispatchChainSeconds($0), true) }

        for backend in context.backends {
            let inline = backend.inlineExecutor
            let pool = backend.defaultExecutor
            Progress.note("chain: \(backend.name) completed, inline")
            measure("completed-inline", backend.name, .backend, "closure") { completedChain(backend, inline, $0) }
            Progress.note("chain: \(backend.name) completed, default executor")
            measure("completed-default", backend.name, .backend, "dispatch") { completedChain(backend, pool, $0) }
            Progress.note("chain: \(backend.name) pending then fired, inline")
            measure("pending-inline", backend.name, .backend, "closure") { pendingChain(backend, inline, $0) }
        }
        return results
    }

    /// Builds and runs `n` maps on an already-completed task, and waits for the last.
    static func completedChain(_ backend: any TaskBackend, _ executor: any Executor, _ n: Int) -> (Double, Bool) {
        var result: Int?
        let seconds = timed {
            var task: any AsyncTask<Int> = backend.succeeded(0)
            for _ in 0..<n { task = task.map(on: executor) { $0 &+ 1 } }
            result = task.wait().value
        }
        return (seconds, result == n)
    }

    /// Builds `n` maps on a pending source, completes it, and waits for the last.
    static func pendingChain(_ backend: any TaskBackend, _ executor: any Executor, _ n: Int) -> (Double, Bool) {
        var result: Int?
        let seconds = timed {
            let source = backend.makeSource(of: Int.self)
            var task: any AsyncTask<Int> = source.task
            for _ in 0..<n { task = task.map(on: executor) { $0 &+ 1 } }
            source.trySucceed(0)
            result = task.wait().value
        }
        return (seconds, result == n)
    }
}
