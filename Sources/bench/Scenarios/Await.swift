import Dispatch
import TaskAPI

/// await: a Swift task awaits `task.value` of a body started on the default executor: the
/// round trip from the Swift task to the backend and back. Baseline: the same round trip
/// written with `withCheckedContinuation` and a Dispatch block.
enum AwaitScenario {
    static let entry = ScenarioEntry(
        name: "await",
        summary: "`try await backend.run { 1 }.value` round trip from a Swift Task; us per round trip",
        run: run
    )

    static func run(_ context: ScenarioContext) -> [Measurement] {
        let n = context.plan.size(12_000, quick: 3_000)
        let reps = context.plan.testableRepetitions
        let (subjects, _) = subjects(context)
        Progress.note("await: \(subjects.map(\.name).joined(separator: ", ")), \(n) round trips, \(context.plan.isolatedRounds)")
        let outcomes = RoundRobin(plan: context.plan).measure(subjects, nominal: n, floor: n / 8, warmSize: n / 8,
                                                              repetitions: reps, isolated: "await.run-value")
        return outcomes.map { outcome in
            var m = Measurement(
                scenario: "await", caseName: "await.run-value@" + sizeLabel(outcome.size), subject: outcome.subject.name,
                kind: outcome.subject.kind, unit: "us", better: .lower,
                values: outcome.runs.map(\.seconds).filter(\.isFinite).map { $0 * 1e6 / Double(outcome.size) },
                baseline: outcome.subject.baseline)
            m.annotate(size: outcome.size, nominal: n, items: "round trips",
                       [outcome.ok ? nil : "an await threw or returned a wrong value, or its process failed"])
            return m
        }
    }

    /// The raw baseline and one subject per backend; nothing to stop.
    static func subjects(_ context: ScenarioContext) -> (subjects: [RoundRobin.Subject], stop: () -> Void) {
        /// One subject: `size` round trips in a detached Swift task; NaN seconds if one went wrong.
        func subject(_ name: String, _ kind: Measurement.Kind, _ baseline: String?,
                     _ roundTrip: @escaping @Sendable () async -> Int?) -> RoundRobin.Subject {
            RoundRobin.Subject(name: name, kind: kind, baseline: baseline) { size in
                let seconds: Double? = blockOn { () async -> Double? in
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
        var subjects = [subject("swift", .baseline, nil) {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(returning: 1) }
            }
        }]
        for backend in context.backends {
            subjects.append(subject(backend.name, .backend, "swift") { try? await backend.run({ _ in 1 }).value })
        }
        return (subjects, {})
    }
}
