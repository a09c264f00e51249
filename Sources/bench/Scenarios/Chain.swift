import TaskAPI

/// chain: the cost of one `map` link, on an already-completed task (inline and default
/// executor) and on a pending source completed once the chain is built; ns per link.
enum ChainScenario: Scenario {
    static let name = "chain"
    static let summary = "map links on a completed task (inline, default executor) and on a pending source then fired; ns/link"

    static func run(_ context: ScenarioContext) -> [Figure] {
        let plan = context.plan
        let n = plan.size(1_000_000, quick: 100_000)
        // A link on the default executor costs several times an inline one (a hop per link):
        // a quarter of the links keeps its five repetitions within the budget on 2 cores.
        let hopping = plan.size(250_000, quick: 25_000)
        let reps = plan.rounds
        var results: [Figure] = []
        /// Each subject at `n` links, or at the size the budget allows (named by that size), in rounds.
        func measure(_ name: String, _ n: Int, _ subjects: [RoundRobin.Subject], isolated: Bool) {
            Progress.note(
                "chain: \(name), \(subjects.map(\.name).joined(separator: ", ")), up to \(n) links"
                    + (isolated ? ", " + plan.isolatedRounds : ""))
            let outcomes = RoundRobin(plan: plan).measure(
                subjects, nominal: n, floor: n / 40, warmSize: n / 10,
                repetitions: reps, isolated: isolated ? "chain." + name : nil)
            for outcome in outcomes {
                let size = outcome.size
                var m = Figure(
                    scenario: Self.name, caseName: "chain.\(name)@\(sizeLabel(size))",
                    subject: outcome.subject.name, kind: outcome.subject.kind, unit: "ns/link",
                    better: .lower, values: outcome.runs.map { $0.seconds * 1e9 / Double(size) },
                    baseline: outcome.subject.baseline)
                m.annotate(
                    size: size, nominal: n, items: "links",
                    [
                        plan.slowdown?.backend == m.subject ? "slowed down on purpose (\(Slowdown.variable))" : nil,
                        outcome.ok ? nil : "a chain gave a wrong value, or its process failed"
                    ])
                results.append(m)
            }
        }
        // Every case in child processes (see `Isolated`): the default-executor chain crosses
        // threads, and the inline chains, on one thread, still differ between processes (the same
        // binary measured 173-175 ns/link for every repetition of one run and 228-248 in the next).
        measure("completed-inline", n, completedInlineSubjects(context).subjects, isolated: true)
        measure("completed-default", hopping, completedDefaultSubjects(context).subjects, isolated: true)
        measure("pending-inline", n, pendingInlineSubjects(context).subjects, isolated: true)
        return results
    }

    /// `chain.completed-inline`'s subjects: the closure loop, and each backend's inline chain on
    /// a completed task; nothing to stop.
    static func completedInlineSubjects(_ context: ScenarioContext) -> (subjects: [RoundRobin.Subject], stop: () -> Void) {
        let subjects = subjects(context, closureSubject, "closure") {
            completedChain($0, $0.inlineExecutor, $1, link: link($2))
        }
        return (subjects, {})
    }

    /// `chain.pending-inline`'s subjects: the closure loop, and each backend's inline chain on a
    /// pending source, then fired; nothing to stop.
    static func pendingInlineSubjects(_ context: ScenarioContext) -> (subjects: [RoundRobin.Subject], stop: () -> Void) {
        let subjects = subjects(context, closureSubject, "closure") {
            pendingChain($0, $0.inlineExecutor, $1, link: link($2))
        }
        return (subjects, {})
    }

    /// The inline chains' baseline: nested closures calling each other.
    private static var closureSubject: RoundRobin.Subject {
        RoundRobin.Subject(name: "closure", kind: .baseline, baseline: nil) { (closureChainSeconds($0), true) }
    }

    /// `chain.completed-default`'s subjects: raw Dispatch steps, and each backend's chain on its
    /// default executor; nothing to stop.
    static func completedDefaultSubjects(_ context: ScenarioContext) -> (subjects: [RoundRobin.Subject], stop: () -> Void) {
        let dispatch = RoundRobin.Subject(name: "dispatch", kind: .baseline, baseline: nil) {
            (dispatchChainSeconds($0), true)
        }
        let subjects = subjects(context, dispatch, "dispatch") {
            completedChain($0, $0.defaultExecutor, $1, link: link($2))
        }
        return (subjects, {})
    }

    /// `baseline`, then one subject per backend running `chain` (backend, links, extra
    /// nanoseconds per link).
    private static func subjects(
        _ context: ScenarioContext, _ baseline: RoundRobin.Subject, _ baselineName: String,
        _ chain: @escaping (any TaskBackend, Int, UInt64) -> (seconds: Double, ok: Bool)
    )
        -> [RoundRobin.Subject]
    {
        [baseline]
            + context.backends.map { backend in
                RoundRobin.Subject(
                    name: backend.name, kind: .backend, baseline: baselineName,
                    run: backendBody(backend, context.plan) { chain(backend, $0, $1) })
            }
    }

    /// A backend's chain body, slowed down when `BENCH_SLOWDOWN` names it: each link also spins
    /// for the given fraction of the per-link time a first unslowed run measured.
    private static func backendBody(
        _ backend: any TaskBackend, _ plan: Plan,
        _ chain: @escaping (Int, UInt64) -> (seconds: Double, ok: Bool)
    )
        -> (Int) -> (seconds: Double, ok: Bool)
    {
        guard let slowdown = plan.slowdown, slowdown.backend == backend.name else { return { chain($0, 0) } }
        var extra: UInt64?
        return { size in
            if let extra { return chain(size, extra) }
            let first = chain(size, 0)
            extra = UInt64(slowdown.fraction * first.seconds * 1e9 / Double(size))
            return first
        }
    }

    /// What every link of a chain runs: the plain link, or a slowed one (`BENCH_SLOWDOWN`).
    enum Link: Sendable, Equatable {
        case plain
        case slowed(SlowedLink.Work)
    }

    /// The link of a chain slowed by `extraNanos` of busy work per link; the plain link for 0.
    static func link(_ extraNanos: UInt64) -> Link {
        extraNanos > 0 ? .slowed(SlowedLink.Work(spinNanos: extraNanos)) : .plain
    }

    /// `task.map(on: executor) { ... }` as a user writes it: a closure literal that captures
    /// nothing. Why: `map` takes its transform at a generic abstraction, so a closure passed as
    /// a value (a variable, a parameter) is wrapped in a reabstraction thunk whose context is
    /// allocated at every call, and a literal that captures a value allocates a context for it:
    /// one malloc and 500-750 instructions per link that the library does not cost (a slowdown
    /// of 20 % measured +45 % that way). A slowed link reads its work from `SlowedLink`, set
    /// before the chain is built.
    @inline(__always)
    static func extend(_ task: any AsyncTask<Int>, on executor: any AsyncTaskExecutor, _ link: Link) -> any AsyncTask<Int> {
        switch link {
        case .plain: return task.map(on: executor) { $0 &+ 1 }
        case .slowed: return task.map(on: executor) { SlowedLink.step($0) }
        }
    }

    /// Builds and runs `n` maps on an already-completed task, and waits for the last.
    static func completedChain(
        _ backend: any TaskBackend, _ executor: any AsyncTaskExecutor, _ n: Int, link: Link
    ) -> (seconds: Double, ok: Bool) {
        timedChain(n, on: executor, link) { (backend.succeeded(0), {}) }
    }

    /// Builds `n` maps on a pending source, completes it, and waits for the last.
    static func pendingChain(
        _ backend: any TaskBackend, _ executor: any AsyncTaskExecutor, _ n: Int, link: Link
    ) -> (seconds: Double, ok: Bool) {
        timedChain(n, on: executor, link) {
            let source = backend.makeSource(of: Int.self)
            return (source.task, { source.trySucceed(0) })
        }
    }

    /// Times a chain of `n` links on the task `start` makes: built link by link, set off by
    /// `start`'s `fire` (nothing for a completed task), and waited for; ok if it counted to `n`.
    private static func timedChain(
        _ n: Int, on executor: any AsyncTaskExecutor, _ link: Link,
        _ start: () -> (task: any AsyncTask<Int>, fire: () -> Void)
    ) -> (seconds: Double, ok: Bool) {
        SlowedLink.install(link)
        var result: Int?
        let seconds = timed {
            let (first, fire) = start()
            var task = first
            for _ in 0..<n { task = extend(task, on: executor, link) }
            fire()
            result = task.wait().value
        }
        return (seconds, result == n)
    }
}
