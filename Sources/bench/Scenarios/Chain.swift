import TaskAPI

/// chain: the cost of one `map` link, on an already-completed task (inline and default
/// executor) and on a pending source completed once the chain is built; ns per link.
enum ChainScenario {
    static let entry = ScenarioEntry(
        name: "chain",
        summary: "map links on a completed task (inline, default executor) and on a pending source then fired; ns/link",
        run: run
    )

    static func run(_ context: ScenarioContext) -> [Measurement] {
        let plan = context.plan
        let n = plan.size(1_000_000, quick: 100_000)
        let reps = plan.repetitions(5, quick: 4)
        var results: [Measurement] = []
        /// A warm-up at a tenth of the size, then as many runs (and as large) as the budget allows.
        /// The case is named by the size measured, which the budget may have made smaller.
        func measure(_ name: String, _ subject: String, _ kind: Measurement.Kind, _ baseline: String?,
                     _ body: (_ n: Int, _ extraNanos: UInt64) -> (seconds: Double, ok: Bool)) {
            let warm = body(n / 10, 0)
            let perLink = warm.seconds / Double(n / 10)
            let extra = plan.slowdown.flatMap { $0.backend == subject ? UInt64($0.fraction * perLink * 1e9) : nil } ?? 0
            let (size, count) = plan.fit(nominal: n, floor: n / 10, repetitions: reps, secondsPerItem: perLink)
            let runs = (0..<count).map { _ in body(size, extra) }
            var m = Measurement(scenario: "chain", caseName: "chain.\(name)@\(sizeLabel(size))", subject: subject,
                                kind: kind, unit: "ns/link", better: .lower,
                                values: runs.map { $0.seconds * 1e9 / Double(size) }, baseline: baseline)
            var notes: [String] = []
            if size != n {
                m.size = size
                notes.append("cut from \(sizeLabel(n)) links to fit the time budget")
            }
            if extra > 0 { notes.append("slowed down on purpose by \(extra) ns/link (BENCH_SLOWDOWN)") }
            if !(runs + [warm]).allSatisfy(\.ok) { notes.append("a chain gave a wrong value") }
            m.note = notes.isEmpty ? nil : notes.joined(separator: "; ")
            results.append(m)
        }

        Progress.note("chain: baselines (closure loop, raw Dispatch chain), \(n) links")
        measure("completed-inline", "closure", .baseline, nil) { n, _ in (closureChainSeconds(n), true) }
        measure("pending-inline", "closure", .baseline, nil) { n, _ in (closureChainSeconds(n), true) }
        measure("completed-default", "dispatch", .baseline, nil) { n, _ in (dispatchChainSeconds(n), true) }

        for backend in context.backends {
            let inline = backend.inlineExecutor
            let pool = backend.defaultExecutor
            Progress.note("chain: \(backend.name) completed, inline")
            measure("completed-inline", backend.name, .backend, "closure") {
                completedChain(backend, inline, $0, extraNanos: $1)
            }
            Progress.note("chain: \(backend.name) completed, default executor")
            measure("completed-default", backend.name, .backend, "dispatch") {
                completedChain(backend, pool, $0, extraNanos: $1)
            }
            Progress.note("chain: \(backend.name) pending then fired, inline")
            measure("pending-inline", backend.name, .backend, "closure") {
                pendingChain(backend, inline, $0, extraNanos: $1)
            }
        }
        return results
    }

    /// The body of every link: adds one, after `extraNanos` of busy work when a slowdown is
    /// injected (a separate closure, so that the normal path captures nothing).
    static func link(_ extraNanos: UInt64) -> @Sendable (Int) -> Int {
        guard extraNanos > 0 else { return { $0 &+ 1 } }
        return { value in
            spin(nanos: extraNanos)
            return value &+ 1
        }
    }

    /// Builds and runs `n` maps on an already-completed task, and waits for the last.
    static func completedChain(
        _ backend: any TaskBackend, _ executor: any Executor, _ n: Int, extraNanos: UInt64 = 0
    ) -> (seconds: Double, ok: Bool) {
        var result: Int?
        let body = link(extraNanos)
        let seconds = timed {
            var task: any AsyncTask<Int> = backend.succeeded(0)
            for _ in 0..<n { task = task.map(on: executor, body) }
            result = task.wait().value
        }
        return (seconds, result == n)
    }

    /// Builds `n` maps on a pending source, completes it, and waits for the last.
    static func pendingChain(
        _ backend: any TaskBackend, _ executor: any Executor, _ n: Int, extraNanos: UInt64 = 0
    ) -> (seconds: Double, ok: Bool) {
        var result: Int?
        let body = link(extraNanos)
        let seconds = timed {
            let source = backend.makeSource(of: Int.self)
            var task: any AsyncTask<Int> = source.task
            for _ in 0..<n { task = task.map(on: executor, body) }
            source.trySucceed(0)
            result = task.wait().value
        }
        return (seconds, result == n)
    }
}
