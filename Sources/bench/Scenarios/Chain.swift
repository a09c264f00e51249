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
        let n = context.plan.size(1_000_000, quick: 100_000)
        let reps = context.plan.repetitions(3, quick: 2)
        let size = "@" + sizeLabel(n)
        func perLink(_ seconds: Double) -> Double { seconds * 1e9 / Double(n) }
        func figure(_ name: String, _ subject: String, _ kind: Measurement.Kind, _ baseline: String?,
                    note: String? = nil, _ values: [Double]) -> Measurement {
            Measurement(scenario: "chain", caseName: name + size, subject: subject, kind: kind,
                        unit: "ns/link", better: .lower, values: values, baseline: baseline, note: note)
        }
        var results: [Measurement] = []

        Progress.note("chain: baselines (closure loop, raw Dispatch chain), \(n) links")
        let closure = repeatedRuns(reps) { closureChainSeconds($0 ? n / 10 : n) }.map(perLink)
        results.append(figure("chain.completed-inline", "closure", .baseline, nil, closure))
        results.append(figure("chain.pending-inline", "closure", .baseline, nil, closure))
        let dispatch = repeatedRuns(reps) { dispatchChainSeconds($0 ? n / 10 : n) }.map(perLink)
        results.append(figure("chain.completed-default", "dispatch", .baseline, nil, dispatch))

        for backend in context.backends {
            let inline = backend.inlineExecutor
            let pool = backend.defaultExecutor
            var wrong: [String] = []
            func check(_ what: String, _ value: Int?, _ expected: Int) {
                if value != expected { wrong.append("\(what) gave \(value.map(String.init) ?? "no value")") }
            }
            Progress.note("chain: \(backend.name) completed, inline")
            let completedInline = repeatedRuns(reps) { warm in
                completedChain(backend, inline, warm ? n / 10 : n) { check("completed-inline", $0, warm ? n / 10 : n) }
            }.map(perLink)
            results.append(figure("chain.completed-inline", backend.name, .backend, "closure",
                                  note: wrong.isEmpty ? nil : wrong.joined(separator: "; "), completedInline))
            wrong = []
            Progress.note("chain: \(backend.name) completed, default executor")
            let completedDefault = repeatedRuns(reps) { warm in
                completedChain(backend, pool, warm ? n / 10 : n) { check("completed-default", $0, warm ? n / 10 : n) }
            }.map(perLink)
            results.append(figure("chain.completed-default", backend.name, .backend, "dispatch",
                                  note: wrong.isEmpty ? nil : wrong.joined(separator: "; "), completedDefault))
            wrong = []
            Progress.note("chain: \(backend.name) pending then fired, inline")
            let pending = repeatedRuns(reps) { warm in
                pendingChain(backend, inline, warm ? n / 10 : n) { check("pending-inline", $0, warm ? n / 10 : n) }
            }.map(perLink)
            results.append(figure("chain.pending-inline", backend.name, .backend, "closure",
                                  note: wrong.isEmpty ? nil : wrong.joined(separator: "; "), pending))
        }
        return results
    }

    /// One warm-up run (`body(true)`, a tenth of the size) and `count` timed runs.
    static func repeatedRuns(_ count: Int, _ body: (Bool) -> Double) -> [Double] {
        _ = body(true)
        return (0..<count).map { _ in body(false) }
    }

    /// Seconds to build and run `n` maps on an already-completed task, and wait for the last.
    static func completedChain(
        _ backend: any TaskBackend, _ executor: any Executor, _ n: Int, _ check: (Int?) -> Void
    ) -> Double {
        var result: Int?
        let seconds = timed {
            var task: any AsyncTask<Int> = backend.succeeded(0)
            for _ in 0..<n { task = task.map(on: executor) { $0 &+ 1 } }
            result = task.wait().value
        }
        check(result)
        return seconds
    }

    /// Seconds to build `n` maps on a pending source, complete it, and wait for the last.
    static func pendingChain(
        _ backend: any TaskBackend, _ executor: any Executor, _ n: Int, _ check: (Int?) -> Void
    ) -> Double {
        var result: Int?
        let seconds = timed {
            let source = backend.makeSource(of: Int.self)
            var task: any AsyncTask<Int> = source.task
            for _ in 0..<n { task = task.map(on: executor) { $0 &+ 1 } }
            source.trySucceed(0)
            result = task.wait().value
        }
        check(result)
        return seconds
    }
}
