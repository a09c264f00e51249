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
        let reps = context.plan.repetitions(5, quick: 4)
        let caseName = "await.run-value@" + sizeLabel(n)
        func figure(_ subject: String, _ kind: Measurement.Kind, _ baseline: String?, _ seconds: [Double?])
            -> Measurement {
            let ok = seconds.allSatisfy { $0 != nil }
            return Measurement(scenario: "await", caseName: caseName, subject: subject, kind: kind, unit: "us",
                               better: .lower, values: seconds.compactMap { $0 }.map { $0 * 1e6 / Double(n) },
                               baseline: baseline, note: ok ? nil : "an await threw or returned a wrong value")
        }
        var results: [Measurement] = []

        Progress.note("await: baseline (withCheckedContinuation + Dispatch), \(n) round trips")
        let raw = repeated(reps) {
            blockOn {
                let start = monotonicNanos()
                var sum = 0
                for _ in 0..<n {
                    sum += await withCheckedContinuation { continuation in
                        DispatchQueue.global().async { continuation.resume(returning: 1) }
                    }
                }
                return sum == n ? Double(monotonicNanos() - start) / 1e9 : nil
            } ?? nil
        }
        results.append(figure("swift", .baseline, nil, raw))

        for backend in context.backends {
            Progress.note("await: \(backend.name)")
            let measured = repeated(reps) {
                blockOn {
                    let start = monotonicNanos()
                    var sum = 0
                    for _ in 0..<n {
                        guard let value = try? await backend.run({ _ in 1 }).value else { return nil }
                        sum += value
                    }
                    return sum == n ? Double(monotonicNanos() - start) / 1e9 : nil
                } ?? nil
            }
            results.append(figure(backend.name, .backend, "swift", measured))
        }
        return results
    }

    private static func repeated(_ count: Int, _ body: () -> Double?) -> [Double?] {
        _ = body()
        return (0..<count).map { _ in body() }
    }
}
