import Dispatch
import Foundation
import TaskAPI

/// contention: several threads register continuations on, and race try-setters against,
/// the same sources; operations (registrations plus setter calls) per second.
enum ContentionScenario: Scenario {
    static let name = "contention"
    static let summary = "threads registering continuations and racing trySucceed on shared sources; ops/s"

    static func run(_ context: ScenarioContext) -> [Figure] {
        let threads = Swift.max(2, context.plan.cores)
        let m = context.plan.size(20_000, quick: 5_000)
        let caseName = "contention.register-race@\(threads)x\(sizeLabel(m))"
        let ops = Double(threads * m * 2)
        func figure(_ outcome: RoundRobin.Outcome) -> Figure {
            Figure(
                scenario: Self.name, caseName: caseName, subject: outcome.subject.name,
                kind: outcome.subject.kind, unit: "ops/s", better: .higher,
                values: outcome.runs.map { ops / $0.seconds }, baseline: outcome.subject.baseline,
                note: outcome.ok ? nil : "a round lost or repeated a continuation or a winner, or its process failed")
        }
        let outcomes = RoundRobin.measureCase(
            name, subjects(context), work: "\(threads) threads x \(m) sources", context,
            nominal: m, floor: m, warmSize: m, isolated: "contention.register-race")
        return outcomes.map(figure)
    }

    /// The raw baseline and one subject per backend; nothing to stop.
    static func subjects(_ context: ScenarioContext) -> (subjects: [RoundRobin.Subject], stop: () -> Void) {
        let threads = Swift.max(2, context.plan.cores)
        var subjects = [
            RoundRobin.Subject(name: "pthreads", kind: .baseline, baseline: nil) { m in
                let promises = (0..<m).map { _ in RawPromise() }
                return race(
                    threads: threads, count: m,
                    register: { j, callback in promises[j].onComplete { _ in callback() } },
                    trySet: { j, value in promises[j].trySet(value) })
            }
        ]
        for backend in context.backends {
            let inline = backend.inlineExecutor
            subjects.append(
                RoundRobin.Subject(name: backend.name, kind: .backend, baseline: "pthreads") { m in
                    let sources = (0..<m).map { _ in backend.makeSource(of: Int.self) }
                    return race(
                        threads: threads, count: m,
                        register: { j, callback in sources[j].task.whenComplete(on: inline) { _ in callback() } },
                        trySet: { j, value in sources[j].trySucceed(value) })
                })
        }
        return (subjects, {})
    }

    /// Starts `threads` threads together; each walks all `count` cells, registering a callback
    /// and then calling the try-setter on each. Returns the seconds from the start signal to the
    /// last thread's end, and whether every callback ran once and every cell had one winner.
    private static func race(
        threads: Int, count: Int,
        register: @escaping @Sendable (Int, @escaping @Sendable () -> Void) -> Void,
        trySet: @escaping @Sendable (Int, Int) -> Bool
    ) -> (Double, Bool) {
        let ran = Counter()
        let winners = Counter()
        let ready = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        for t in 0..<threads {
            Thread {
                ready.signal()
                go.wait()
                var won = 0
                for j in 0..<count {
                    register(j) { ran.add(1) }
                    if trySet(j, t) { won += 1 }
                }
                winners.add(won)
                finished.signal()
            }.start()
        }
        for _ in 0..<threads { ready.wait() }
        let seconds = timed {
            for _ in 0..<threads { go.signal() }
            for _ in 0..<threads { finished.wait() }
        }
        return (seconds, ran.value == threads * count && winners.value == count)
    }
}
