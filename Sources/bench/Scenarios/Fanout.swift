import Dispatch
import Synchronization
import TaskAPI

/// fanout: many tiny bodies started at once and joined; tasks per second.
enum FanoutScenario {
    static let entry = ScenarioEntry(
        name: "fanout",
        summary: "100,000 tiny run bodies joined with whenAll; tasks/s",
        run: run
    )

    static func run(_ context: ScenarioContext) -> [Measurement] {
        let n = context.plan.size(100_000, quick: 20_000)
        let reps = context.plan.repetitions(5, quick: 4)
        let caseName = "fanout.whenAll@" + sizeLabel(n)
        func figure(_ subject: String, _ kind: Measurement.Kind, _ baseline: String?, _ seconds: [Double],
                    note: String? = nil) -> Measurement {
            Measurement(scenario: "fanout", caseName: caseName, subject: subject, kind: kind, unit: "tasks/s",
                        better: .higher, values: seconds.map { Double(n) / $0 }, baseline: baseline, note: note)
        }
        var results: [Measurement] = []
        let plan = context.plan

        Progress.note("fanout: baselines, \(n) bodies")
        results.append(figure("dispatch", .baseline, nil, plan.repeatedWithinBudget(reps) { dispatchFanout(n) }))
        results.append(figure("swift", .baseline, nil, plan.repeatedWithinBudget(reps) { swiftFanout(n) }))
        let pool = RawThreadPool(threads: context.plan.cores)
        results.append(figure("pthreads", .baseline, nil, plan.repeatedWithinBudget(reps) { threadsFanout(n, pool) }))
        pool.stop()

        for backend in context.backends {
            Progress.note("fanout: \(backend.name)")
            var ok = true
            let seconds = plan.repeatedWithinBudget(reps) {
                var sum = 0
                let t = timed {
                    let tasks: [any AsyncTask<Int>] = (0..<n).map { i in backend.run { _ in i & 1 } }
                    sum = (try? backend.whenAll(tasks).get())?.reduce(0, +) ?? -1
                }
                if sum != n / 2 { ok = false }
                return t
            }
            results.append(figure(backend.name, .backend, matchingBaseline(for: backend), seconds,
                                  note: ok ? nil : "whenAll gave a wrong sum"))
        }
        return results
    }

    /// Raw Dispatch: `n` blocks on the global queue, joined with a group.
    static func dispatchFanout(_ n: Int) -> Double {
        let sum = Counter()
        return timed {
            let group = DispatchGroup()
            for i in 0..<n {
                DispatchQueue.global().async(group: group) { sum.add(i & 1) }
            }
            group.wait()
        }
    }

    /// Raw Swift concurrency: `n` child tasks in a task group, from a detached task.
    static func swiftFanout(_ n: Int) -> Double {
        timed {
            let total = blockOn {
                await withTaskGroup(of: Int.self) { group in
                    for i in 0..<n { group.addTask { i & 1 } }
                    var sum = 0
                    for await value in group { sum += value }
                    return sum
                }
            }
            blackHole(total)
        }
    }

    /// Raw threads: `n` jobs on a fixed pool of threads, joined with a countdown.
    static func threadsFanout(_ n: Int, _ pool: RawThreadPool) -> Double {
        let remaining = Counter(n)
        let done = DispatchSemaphore(value: 0)
        return timed {
            for _ in 0..<n {
                pool.submit {
                    if remaining.add(-1) == 0 { done.signal() }
                }
            }
            done.wait()
        }
    }
}
