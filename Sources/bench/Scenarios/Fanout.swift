import Dispatch
import Synchronization
import TaskAPI

/// fanout: many tiny bodies started at once and joined; tasks per second.
enum FanoutScenario: Scenario {
    static let name = "fanout"
    static let summary = "100,000 tiny run bodies joined with whenAll; tasks/s"

    static func run(_ context: ScenarioContext) -> [Figure] {
        let n = context.plan.size(100_000, quick: 20_000)
        let outcomes = RoundRobin.measureCase(
            name, subjects(context), work: "up to \(n) bodies", context,
            nominal: n, floor: n / 10, warmSize: n / 10, isolated: "fanout.whenAll")
        return outcomes.map { outcome in
            var m = Figure(
                scenario: Self.name, caseName: "fanout.whenAll@" + sizeLabel(outcome.size),
                subject: outcome.subject.name, kind: outcome.subject.kind, unit: "tasks/s",
                better: .higher, values: outcome.runs.map { Double(outcome.size) / $0.seconds },
                baseline: outcome.subject.baseline)
            m.annotate(size: outcome.size, nominal: n, items: "bodies", [outcome.ok ? nil : "whenAll gave a wrong sum"])
            return m
        }
    }

    /// The baselines and one subject per backend, and what stops the raw pool once measured.
    static func subjects(_ context: ScenarioContext) -> (subjects: [RoundRobin.Subject], stop: () -> Void) {
        let pool = RawThreadPool(threads: context.plan.cores)
        func timedOK(_ seconds: Double) -> (seconds: Double, ok: Bool) { (seconds, true) }
        var subjects = [
            RoundRobin.Subject(name: "dispatch", kind: .baseline, baseline: nil) { timedOK(dispatchFanout($0)) },
            RoundRobin.Subject(name: "swift", kind: .baseline, baseline: nil) { timedOK(swiftFanout($0)) },
            RoundRobin.Subject(name: "pthreads", kind: .baseline, baseline: nil) { timedOK(threadsFanout($0, pool)) }
        ]
        for backend in context.backends {
            subjects.append(
                RoundRobin.Subject(
                    name: backend.name, kind: .backend,
                    baseline: matchingBaseline(for: backend)
                ) { size in
                    var sum = 0
                    let seconds = timed {
                        let tasks: [any AsyncTask<Int>] = (0..<size).map { i in backend.run { _ in i & 1 } }
                        sum = (try? backend.whenAll(tasks).get())?.reduce(0, +) ?? -1
                    }
                    return (seconds, sum == size / 2)
                })
        }
        return (subjects, pool.stop)
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
