import Dispatch
import TaskAPI

/// scaling: how each cost grows with the work. Every series measures its subjects (each backend
/// and the raw baselines) at sizes a factor apart and reports the cost per unit of work at each
/// size: a flat per-unit cost is linear growth; one that rises is superlinear (`ScalingFinding`).
///
/// The cost is processor time, every thread's (`processCPUNanos`), not the wall clock: on a
/// shared machine a run of a few milliseconds is rarely preempted while one of seconds is, in
/// proportion, so wall-clock per-unit costs rose with size on their own (at load 20 on 2 cores,
/// a 100,000-link chain took 6x a 10,000-link chain's time per link in a --quick run).
///
/// - `chain-completed-inline`, `chain-pending-inline`: `map` chains of 10^3 to 10^7 links
///   (`--quick`: 10^5), as the chain scenario builds them; baseline the closure loop.
/// - `fanout`: 10^3 to 10^6 bodies (`--quick`: 10^5) joined with `whenAll`; baselines a Dispatch
///   group, a Swift task group, a raw thread pool.
/// - `waiters`: 1 to 64 threads blocked in `wait()` on one pending task, then woken by its
///   completion, measured from the completion to the last return; baseline a condition
///   variable's broadcast (`CondvarEvent`).
/// - `continuations`: 1 to 1,024 `whenComplete` continuations (inline executor) on one pending
///   task, then completed; baseline a hand-written promise's callback list (`RawPromise`).
/// - `handlers`: 1 to 16,384 handlers registered on one cancellation source, then cancelled;
///   baseline the same callback list.
///
/// A small size repeats its round (a new chain, task or source each time) until the repetition
/// holds `minimumItems` units, so that every point is measured over much more than the clock's
/// resolution; the per-unit cost then carries the round's fixed cost (making a task, waking the
/// timing thread) divided by the size. Every point is the median of `repetitions` runs taken in
/// rounds (each subject once, then again), in this process up to the series' `isolatedFrom`
/// units, each in a child process from there (in a default run).
enum ScalingScenario: Scenario {
    static let name = "scaling"
    static let summary =
        "per-unit cost against size: chains 1k-10M links, fan-out 1k-1M, 1-64 waiters, "
        + "1-1,024 continuations, 1-16,384 handlers; processor ns per unit"

    /// One curve: its subjects measured at each size.
    struct Series {
        /// `chain-pending-inline`, `waiters`, ...: the case name is `scaling.NAME/SIZE`.
        let name: String
        /// The unit of work, singular: `link`, `body`, `waiter`... (the figure's unit is `cpu-ns/link`).
        let item: String
        let sizes: [Int]
        /// Units a repetition holds at least: sizes below it repeat their round.
        let minimumItems: Int
        /// From this size up, in a default run (`Plan.isolates`), each point runs in a child
        /// process of its own (`ScalingProbe`); `Int.max`: never.
        var isolatedFrom = Int.max
        let subjects: [Subject]
        /// What stops the series' threads once it is measured.
        let stop: () -> Void
    }

    /// One subject of a series: `run(size, rounds)` does `rounds` rounds of `size` units and
    /// returns the processor seconds they took and whether every result was right.
    struct Subject {
        let name: String
        let kind: Figure.Kind
        let baseline: String?
        let run: (_ size: Int, _ rounds: Int) -> Outcome
    }

    /// Every series by name, in the order a run measures them.
    static let makers: [(name: String, make: @Sendable (ScenarioContext) -> Series)] = [
        ("chain-completed-inline", chainSeries(completed: true)),
        ("chain-pending-inline", chainSeries(completed: false)),
        ("fanout", fanoutSeries),
        ("waiters", waitersSeries),
        ("continuations", continuationsSeries),
        ("handlers", handlersSeries)
    ]

    static func run(_ context: ScenarioContext) -> [Figure] {
        var results: [Figure] = []
        for (_, make) in makers {
            let series = make(context)
            defer { series.stop() }
            results += measure(series, plan: context.plan)
        }
        return results
    }

    /// Repetitions of a point: one from a million units up (chains of 1M and 10M links, a fan-out
    /// of 1M bodies), whose one run lasts a second or more and varies least in processor time;
    /// three below. A default run stays within its time.
    static func repetitions(_ size: Int) -> Int {
        size >= 1_000_000 ? 1 : 3
    }

    /// Where the chains and the fan-out take a child process per point: a 10M-link pending
    /// chain holds 1.3 GB, which the process kept mapped after the chain was freed, so the
    /// subject measured first paid the page faults of fresh memory and the ones after it reused
    /// the pages (in one run, gcd 387.5 processor ns/link at 10M, then threads 153.1 and actors
    /// 137.7; each in a fresh process, 197-385).
    static let largeSizes = 1_000_000

    /// Every point of `series`, each subject warmed up first at its second size.
    static func measure(_ series: Series, plan: Plan) -> [Figure] {
        Progress.note(
            "scaling: \(series.name), \(series.subjects.map(\.name).joined(separator: ", ")), "
                + "\(series.sizes.map(sizeLabel).joined(separator: ", ")) \(plural(series.item))")
        let warm = series.sizes.dropFirst().first ?? series.sizes[0]
        let warmedOK = series.subjects.map { $0.run(warm, 1).ok }
        var results: [Figure] = []
        for size in series.sizes {
            let rounds = Swift.max(1, series.minimumItems / size)
            var runs = [[Outcome]](repeating: [], count: series.subjects.count)
            for _ in 0..<repetitions(size) {
                for (index, subject) in series.subjects.enumerated() {
                    if plan.isolates && size >= series.isolatedFrom {
                        runs[index].append(ScalingProbe.repetition(series.name, subject.name, size: size, rounds: rounds))
                    } else {
                        runs[index].append(subject.run(size, rounds))
                    }
                }
            }
            for (index, subject) in series.subjects.enumerated() {
                let units = Double(size * rounds)
                let ok = warmedOK[index] && runs[index].allSatisfy(\.ok)
                var m = Figure(
                    scenario: Self.name, caseName: "\(Self.name).\(series.name)/\(sizeLabel(size))",
                    subject: subject.name, kind: subject.kind, unit: "cpu-ns/\(series.item)", better: .lower,
                    values: runs[index].map { $0.seconds * 1e9 / units }.filter(\.isFinite), baseline: subject.baseline,
                    note: ok ? nil : "a round gave a wrong result, or its process failed")
                m.workSize = size
                results.append(m)
            }
        }
        return results
    }

    /// Processor seconds and whether every result was right.
    typealias Outcome = (seconds: Double, ok: Bool)

    /// `body` once per round, its processor seconds summed; ok if every round was.
    static func rounds(_ count: Int, _ body: () -> Outcome) -> Outcome {
        var total = 0.0
        var ok = true
        for _ in 0..<count {
            let one = body()
            total += one.seconds
            ok = ok && one.ok
        }
        return (total, ok)
    }

    /// A chain scenario's subjects (closure loop, each backend), one chain per round.
    static func chainSeries(completed: Bool) -> @Sendable (ScenarioContext) -> Series {
        { context in
            let made = completed ? ChainScenario.completedInlineSubjects(context) : ChainScenario.pendingInlineSubjects(context)
            let top = context.plan.size(10_000_000, quick: 100_000)
            return Series(
                name: completed ? "chain-completed-inline" : "chain-pending-inline", item: "link",
                sizes: decades(from: 1_000, to: top), minimumItems: context.plan.size(100_000, quick: 10_000),
                isolatedFrom: largeSizes, subjects: made.subjects.map(perRound), stop: made.stop)
        }
    }

    /// The fan-out scenario's subjects (raw Dispatch, Swift and thread pool, each backend).
    static func fanoutSeries(_ context: ScenarioContext) -> Series {
        let made = FanoutScenario.subjects(context)
        return Series(
            name: "fanout", item: "body", sizes: decades(from: 1_000, to: context.plan.size(1_000_000, quick: 100_000)),
            minimumItems: context.plan.size(100_000, quick: 10_000), isolatedFrom: largeSizes,
            subjects: made.subjects.map(perRound), stop: made.stop)
    }

    /// A round-robin subject whose `run(n)` is one round, repeated, its processor time measured
    /// around it (the wall-clock seconds it returns are left aside).
    static func perRound(_ subject: RoundRobin.Subject) -> Subject {
        Subject(name: subject.name, kind: subject.kind, baseline: subject.baseline) { size, count in
            rounds(count) {
                var ok = false
                let seconds = cpuTimed { ok = subject.run(size).ok }
                return (seconds, ok)
            }
        }
    }

    /// `from`, 10 x `from`, ... up to `to`.
    static func decades(from: Int, to: Int) -> [Int] {
        Array(sequence(first: from) { $0 * 10 }.prefix { $0 <= to })
    }

    /// `from`, `factor` x `from`, ... up to `to`.
    static func steps(from: Int, to: Int, factor: Int) -> [Int] {
        Array(sequence(first: from) { $0 * factor }.prefix { $0 <= to })
    }

    /// Waiters blocked in `wait()` on one pending task, woken by its completion.
    static func waitersSeries(_ context: ScenarioContext) -> Series {
        let sizes = steps(from: 1, to: 64, factor: 2)
        let crew = WaiterCrew(threads: sizes.last ?? 1)
        /// Rounds of `size` waiters blocked in `wait` until `fire`, made afresh for each round.
        func crewRounds(_ size: Int, _ count: Int, _ make: () -> (wait: WaiterCrew.Wait, fire: () -> Void)) -> Outcome {
            rounds(count) {
                let event = make()
                let round = crew.round(size, wait: event.wait, fire: event.fire)
                return (Double(round.nanos) / 1e9, round.ok)
            }
        }
        var subjects = [
            Subject(name: "pthreads", kind: .baseline, baseline: nil) { size, count in
                crewRounds(size, count) {
                    let event = CondvarEvent()
                    return (
                        {
                            event.wait()
                            return true
                        }, event.set
                    )
                }
            }
        ]
        for backend in context.backends {
            subjects.append(
                Subject(name: backend.name, kind: .backend, baseline: "pthreads") { size, count in
                    crewRounds(size, count) {
                        let source = backend.makeSource(of: Int.self)
                        let task = source.task
                        return ({ task.wait().value == 1 }, { source.trySucceed(1) })
                    }
                })
        }
        return Series(
            // Every point in a child process of its own: in one process with the other curves'
            // thread pools (every backend's, Dispatch's, Swift's), threads' 64 waiters cost 3.7x its
            // 32 (21.6k against 5.9k processor ns each, all 3 repetitions apart) in one run; in
            // fresh processes, 5 each, 6.5-8.2k and 6.2-12.7k.
            name: "waiters", item: "waiter", sizes: sizes, minimumItems: context.plan.size(256, quick: 64), isolatedFrom: 1,
            subjects: subjects, stop: crew.stop)
    }

    /// The baseline of the continuations and handlers series: `size` callbacks stored in a
    /// hand-written promise's list under a lock, then run by setting it (`RawPromise`).
    static var callbackListSubject: Subject {
        Subject(name: "pthreads", kind: .baseline, baseline: nil) { size, count in
            let ran = Counter()
            let seconds = cpuTimed {
                for _ in 0..<count {
                    let promise = RawPromise()
                    for _ in 0..<size { promise.onComplete { _ in ran.add(1) } }
                    promise.trySet(1)
                }
            }
            return (seconds, ran.value == size * count)
        }
    }

    /// Continuations registered on one pending task, then run by its completion.
    static func continuationsSeries(_ context: ScenarioContext) -> Series {
        var subjects = [callbackListSubject]
        for backend in context.backends {
            let inline = backend.inlineExecutor
            subjects.append(
                Subject(name: backend.name, kind: .backend, baseline: "pthreads") { size, count in
                    let ran = Counter()
                    let seconds = cpuTimed {
                        for _ in 0..<count {
                            let source = backend.makeSource(of: Int.self)
                            for _ in 0..<size { source.task.whenComplete(on: inline) { _ in ran.add(1) } }
                            source.trySucceed(1)
                        }
                    }
                    return (seconds, ran.value == size * count)
                })
        }
        return Series(
            name: "continuations", item: "continuation", sizes: steps(from: 1, to: 1_024, factor: 4),
            minimumItems: context.plan.size(65_536, quick: 16_384), subjects: subjects, stop: {})
    }

    /// Handlers registered on one cancellation source, then run by `cancel()`.
    static func handlersSeries(_ context: ScenarioContext) -> Series {
        var subjects = [callbackListSubject]
        for backend in context.backends {
            subjects.append(
                Subject(name: backend.name, kind: .backend, baseline: "pthreads") { size, count in
                    let ran = Counter()
                    let seconds = cpuTimed {
                        for _ in 0..<count {
                            let source = backend.makeCancellationSource()
                            // A registration let go is not disposed: the handler stays registered.
                            for _ in 0..<size { _ = source.register { ran.add(1) } }
                            source.cancel()
                        }
                    }
                    return (seconds, ran.value == size * count)
                })
        }
        return Series(
            name: "handlers", item: "handler", sizes: steps(from: 1, to: 16_384, factor: 4),
            minimumItems: context.plan.size(65_536, quick: 16_384), subjects: subjects, stop: {})
    }
}
