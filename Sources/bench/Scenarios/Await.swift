import Dispatch
import TaskAPI

/// await: a Swift task awaits a backend task's `value`, in two cases.
///
/// - `await.run-value`: the value of a body started on the default executor, the round trip from
///   the Swift task to the backend and back. Baselines: the same round trip written with
///   `withCheckedContinuation`, resumed from a Dispatch block (`swift`) or from a job on a fixed
///   pool of threads (`pthreads`); each backend is divided by the one its users would otherwise
///   write (`awaitBaseline`).
/// - `await.completed-value`: the value of a task completed before the first `await` (one task,
///   awaited again and again): what reading a result costs once nothing is left to wait for.
///   Baseline: `swift`, a checked continuation resumed inside its own closure, the cheapest
///   `withCheckedContinuation` round trip, which every backend is divided by.
enum AwaitScenario: Scenario {
    static let name = "await"
    static let summary = "`try await backend.run { 1 }.value` round trip from a Swift Task (us), and `await` of a completed task (ns)"

    /// The two cases' variants (their case names without the size).
    static let runValue = "await.run-value"
    static let completedValue = "await.completed-value"

    static func run(_ context: ScenarioContext) -> [Figure] {
        let n = context.plan.size(12_000, quick: 3_000)
        let pending = RoundRobin.measureCase(
            name, subjects(context), work: "\(n) round trips", context,
            nominal: n, floor: n / 8, warmSize: n / 8, isolated: runValue)
        // About 100 ns each: 500,000 make a repetition of 50-100 ms, long enough that a clock
        // read and a process's first page faults do not show.
        let awaits = context.plan.size(500_000, quick: 100_000)
        let completed = RoundRobin.measureCase(
            name, completedSubjects(context), work: "\(awaits) awaits of a completed task", context,
            nominal: awaits, floor: awaits / 8, warmSize: awaits / 10, isolated: completedValue,
            grouping: .together)
        return pending.map { figure($0, variant: runValue, unit: "us", nominal: n, items: "round trips") }
            + completed.map { figure($0, variant: completedValue, unit: "cpu-ns", nominal: awaits, items: "awaits") }
    }

    /// A figure per item of one subject's outcome, in `unit` (`us`, or `cpu-ns` of processor time).
    private static func figure(
        _ outcome: RoundRobin.Outcome, variant: String, unit: String, nominal: Int, items: String
    ) -> Figure {
        let scale = unit == "us" ? 1e6 : 1e9
        var m = Figure(
            scenario: name, caseName: variant + "@" + sizeLabel(outcome.size), subject: outcome.subject.name,
            kind: outcome.subject.kind, unit: unit, better: .lower,
            values: outcome.runs.map(\.seconds).filter(\.isFinite).map { $0 * scale / Double(outcome.size) },
            baseline: outcome.subject.baseline)
        m.annotate(
            size: outcome.size, nominal: nominal, items: items,
            [outcome.ok ? nil : "an await threw or returned a wrong value, or its process failed"])
        return m
    }

    /// One subject: `size` round trips in a detached Swift task, timed by `clock` (nanoseconds);
    /// NaN seconds if one went wrong.
    private static func subject(
        _ name: String, _ kind: Figure.Kind, _ baseline: String?, clock: @escaping @Sendable () -> UInt64 = monotonicNanos,
        _ roundTrip: @escaping @Sendable () async -> Int?
    ) -> RoundRobin.Subject {
        RoundRobin.Subject(name: name, kind: kind, baseline: baseline) { size in
            let seconds: Double? =
                blockOn { () async -> Double? in
                    let start = clock()
                    var sum = 0
                    for _ in 0..<size {
                        guard let value = await roundTrip() else { return nil }
                        sum += value
                    }
                    return sum == size ? Double(clock() - start) / 1e9 : nil
                } ?? nil
            return (seconds ?? .nan, seconds != nil)
        }
    }

    /// The raw baselines and one subject per backend of `await.run-value`, and what stops the raw
    /// pool.
    static func subjects(_ context: ScenarioContext) -> (subjects: [RoundRobin.Subject], stop: () -> Void) {
        // On Linux Swift's global executor is Dispatch's root queue: a Dispatch block that resumes
        // the task leaves its job to the very thread that ran the block, with no thread to wake.
        // A pool of its own (the threads backend's, a hand-written one) wakes one per round trip;
        // `pthreads` is that hand-written pool.
        let pool = RawThreadPool(threads: context.plan.cores)
        var subjects = [
            subject("swift", .baseline, nil) {
                await withCheckedContinuation { continuation in
                    DispatchQueue.global().async { continuation.resume(returning: 1) }
                }
            },
            subject("pthreads", .baseline, nil) {
                await withCheckedContinuation { continuation in
                    pool.submit { continuation.resume(returning: 1) }
                }
            }
        ]
        for backend in context.backends {
            subjects.append(
                subject(backend.name, .backend, awaitBaseline(for: backend)) {
                    // A task of `Int`, as the baselines' continuations resume with: in this
                    // closure, which returns `Int?`, `backend.run({ _ in 1 })` alone is inferred
                    // a task of `Int?`, whose value unspecialized code copies through `Optional`'s
                    // value witnesses (about 65 instructions each, `Int`'s about 15).
                    let task: any AsyncTask<Int> = backend.run { _ in 1 }
                    return try? await task.value
                })
        }
        return (subjects, pool.stop)
    }

    /// The subjects of `await.completed-value`: the checked continuation resumed inside its
    /// closure (`swift`), and per backend one task completed once (a source that succeeded with 1)
    /// whose `value` every round trip awaits. Nothing to stop.
    ///
    /// Timed in the process's processor time, not the wall clock: nothing here waits for another
    /// thread (neither side suspends), so the processor time is the work, and a repetition of
    /// 50 ms that the scheduler preempts on a loaded 2-core machine does not count the time it
    /// stood (by the wall clock the rounds' ratios spread 3-4.6x at load 7).
    static func completedSubjects(_ context: ScenarioContext) -> (subjects: [RoundRobin.Subject], stop: () -> Void) {
        var subjects = [
            subject("swift", .baseline, nil, clock: processCPUNanos) {
                await withCheckedContinuation { continuation in continuation.resume(returning: 1) }
            }
        ]
        for backend in context.backends {
            let source = backend.makeSource(of: Int.self)
            source.trySucceed(1)
            let task = source.task
            subjects.append(
                subject(backend.name, .backend, "swift", clock: processCPUNanos) {
                    try? await task.value
                })
        }
        return (subjects, {})
    }

    /// The baseline a backend's round trip is divided by: a raw pool for the threads backend,
    /// Swift concurrency on Dispatch for any other (`matchingBaseline`, with Dispatch's own
    /// round trip being the swift one).
    static func awaitBaseline(for backend: any TaskBackend) -> String {
        matchingBaseline(for: backend) == "pthreads" ? "pthreads" : "swift"
    }
}
