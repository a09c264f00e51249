import Dispatch
import TaskAPI

/// await: a Swift task awaits `task.value` of a body started on the default executor: the
/// round trip from the Swift task to the backend and back. Baselines: the same round trip
/// written with `withCheckedContinuation`, resumed from a Dispatch block (`swift`) or from a job
/// on a fixed pool of threads (`pthreads`); each backend is divided by the one its users would
/// otherwise write (`matchingBaseline`).
enum AwaitScenario: Scenario {
    static let name = "await"
    static let summary = "`try await backend.run { 1 }.value` round trip from a Swift Task; us per round trip"

    static func run(_ context: ScenarioContext) -> [Figure] {
        let n = context.plan.size(12_000, quick: 3_000)
        let outcomes = RoundRobin.measureCase(
            name, subjects(context), work: "\(n) round trips", context,
            nominal: n, floor: n / 8, warmSize: n / 8, isolated: "await.run-value")
        return outcomes.map { outcome in
            var m = Figure(
                scenario: Self.name, caseName: "await.run-value@" + sizeLabel(outcome.size), subject: outcome.subject.name,
                kind: outcome.subject.kind, unit: "us", better: .lower,
                values: outcome.runs.map(\.seconds).filter(\.isFinite).map { $0 * 1e6 / Double(outcome.size) },
                baseline: outcome.subject.baseline)
            m.annotate(
                size: outcome.size, nominal: n, items: "round trips",
                [outcome.ok ? nil : "an await threw or returned a wrong value, or its process failed"])
            return m
        }
    }

    /// The raw baselines and one subject per backend, and what stops the raw pool.
    static func subjects(_ context: ScenarioContext) -> (subjects: [RoundRobin.Subject], stop: () -> Void) {
        /// One subject: `size` round trips in a detached Swift task; NaN seconds if one went wrong.
        func subject(
            _ name: String, _ kind: Figure.Kind, _ baseline: String?,
            _ roundTrip: @escaping @Sendable () async -> Int?
        ) -> RoundRobin.Subject {
            RoundRobin.Subject(name: name, kind: kind, baseline: baseline) { size in
                let seconds: Double? =
                    blockOn { () async -> Double? in
                        let start = monotonicNanos()
                        var sum = 0
                        for _ in 0..<size {
                            guard let value = await roundTrip() else { return nil }
                            sum += value
                        }
                        return sum == size ? Double(monotonicNanos() - start) / 1e9 : nil
                    } ?? nil
                return (seconds ?? .nan, seconds != nil)
            }
        }
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
                    try? await backend.run({ _ in 1 }).value
                })
        }
        return (subjects, pool.stop)
    }

    /// The baseline a backend's round trip is divided by: a raw pool for the threads backend,
    /// Swift concurrency on Dispatch for any other (`matchingBaseline`, with Dispatch's own
    /// round trip being the swift one).
    static func awaitBaseline(for backend: any TaskBackend) -> String {
        matchingBaseline(for: backend) == "pthreads" ? "pthreads" : "swift"
    }
}
