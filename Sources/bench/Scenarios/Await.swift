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
        let caseName = "await.run-value@" + sizeLabel(n)
        /// One subject: `n` round trips in a detached Swift task; NaN seconds if one went wrong.
        func subject(_ name: String, _ kind: Measurement.Kind, _ baseline: String?,
                     _ roundTrip: @escaping @Sendable () async -> Int?) -> RoundRobin.Subject {
            RoundRobin.Subject(name: name, kind: kind, baseline: baseline) { _ in
                let seconds: Double? = blockOn { () async -> Double? in
                    let start = monotonicNanos()
                    var sum = 0
                    for _ in 0..<n {
                        guard let value = await roundTrip() else { return nil }
                        sum += value
                    }
                    return sum == n ? Double(monotonicNanos() - start) / 1e9 : nil
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
        Progress.note("await: \(subjects.map(\.name).joined(separator: ", ")), \(n) round trips, in rounds")
        let outcomes = RoundRobin(plan: context.plan).measure(subjects, nominal: n, floor: n, warmSize: n,
                                                              repetitions: reps)
        return outcomes.map { outcome in
            Measurement(scenario: "await", caseName: caseName, subject: outcome.subject.name,
                        kind: outcome.subject.kind, unit: "us", better: .lower,
                        values: outcome.runs.map(\.seconds).filter(\.isFinite).map { $0 * 1e6 / Double(n) },
                        baseline: outcome.subject.baseline,
                        note: outcome.ok ? nil : "an await threw or returned a wrong value")
        }
    }
}
