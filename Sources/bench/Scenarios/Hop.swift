import Dispatch
import TaskAPI

/// hop: latency from completing a source on one thread to the start of its continuation on
/// another executor; the raw baselines time the same hand-off written by hand.
enum HopScenario: Scenario {
    static let name = "hop"
    static let summary = "source completed on one thread -> continuation starts (default and serial executor); p50/p90/p99/max"

    static func run(_ context: ScenarioContext) -> [Figure] {
        // 5 repetitions: what `bench compare` needs to test a figure (see `testableRepetitions`).
        let sampler = Sampler(
            plan: context.plan, repetitions: context.plan.testableRepetitions,
            samples: context.plan.size(6_000, quick: 2_000))
        // In process the swift baseline's task serves the warm-up and every repetition; isolated,
        // each child has its own, and the parent's takes none.
        let total = context.plan.isolates ? 0 : sampler.warmup + sampler.repetitions * sampler.samples
        let (specs, stop) = specs(context, total: total)
        defer { stop() }
        Progress.note(
            "hop: \(specs.count) subjects, \(sampler.repetitions) rounds of \(sampler.samples) samples each"
                + (context.plan.isolates ? ", a child process per repetition" : ""))
        return sampler.measure(specs)
    }

    /// Every subject's sampler, for `total` samples (the swift baseline's task resumes exactly that
    /// many times), and what stops the condition-variable hand-off once measured.
    static func specs(_ context: ScenarioContext, total: Int) -> (specs: [Sampler.Spec], stop: () -> Void) {
        let plan = context.plan
        let size = "@" + sizeLabel(plan.size(6_000, quick: 2_000) * plan.testableRepetitions)
        let serialQueue = DispatchQueue(label: "bench.hop.serial")
        let handoff = CondvarHandoff()
        var specs = [
            Sampler.Spec(caseName: "hop.default" + size, subject: "dispatch", kind: .baseline, baseline: nil) {
                dispatchHop(DispatchQueue.global())
            },
            Sampler.Spec(caseName: "hop.serial" + size, subject: "dispatch", kind: .baseline, baseline: nil) {
                dispatchHop(serialQueue)
            },
            Sampler.Spec(caseName: "hop.default" + size, subject: "pthreads", kind: .baseline, baseline: nil) {
                handoff.hop()
            },
            Sampler.Spec(
                caseName: "hop.default" + size, subject: "swift", kind: .baseline, baseline: nil,
                sample: swiftHop(total: total))
        ]
        for backend in context.backends {
            for kind in [ExecutorKind.default, .serial] {
                let executor = kind.make(for: backend)
                // Serial hops have one baseline, a serial Dispatch queue; default hops the matching one.
                let baseline = kind == .serial ? "dispatch" : matchingBaseline(for: backend)
                specs.append(
                    Sampler.Spec(
                        caseName: "hop.\(kind.rawValue)" + size, subject: backend.name,
                        kind: .backend, baseline: baseline
                    ) {
                        backendHop(backend, executor)
                    })
            }
        }
        return (specs, handoff.stop)
    }

    private static let stamp = Stamp()
    private static let done = DispatchSemaphore(value: 0)

    private static func dispatchHop(_ queue: DispatchQueue) -> UInt64 {
        let start = monotonicNanos()
        queue.async {
            stamp.mark()
            done.signal()
        }
        done.wait()
        return stamp.nanos &- start
    }

    private static func backendHop(_ backend: any TaskBackend, _ executor: any AsyncTaskExecutor) -> UInt64 {
        let source = backend.makeSource(of: Int.self)
        source.task.whenComplete(on: executor) { _ in
            stamp.mark()
            done.signal()
        }
        let start = monotonicNanos()
        source.trySucceed(1)
        done.wait()
        return stamp.nanos &- start
    }

    /// Raw Swift concurrency: a detached task suspended in `withCheckedContinuation`, resumed
    /// from this thread; the sampler calls the returned closure exactly `total` times.
    private static func swiftHop(total: Int) -> () -> UInt64 {
        let slot = LockedBox<CheckedContinuation<Void, Never>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let stamp = Stamp()
        let resumed = DispatchSemaphore(value: 0)
        Task.detached {
            for _ in 0..<total {
                await withCheckedContinuation { continuation in
                    slot.withLock { $0 = continuation }
                    ready.signal()
                }
                stamp.mark()
                resumed.signal()
            }
        }
        return {
            ready.wait()
            let continuation = slot.withLock { slot in
                defer { slot = nil }
                return slot
            }
            let start = monotonicNanos()
            continuation?.resume()
            resumed.wait()
            return stamp.nanos &- start
        }
    }
}

/// Collects latency samples in rounds (see `RoundRobin`): each round takes `samples` samples of
/// every subject in turn, after `warmup` samples of each. A figure is the p50 of each repetition
/// (median, min, max over repetitions); its percentiles pool every sample. When the plan
/// isolates, each repetition is a child process of its own (see `Isolated`), warmed up there.
struct Sampler {
    let plan: Plan
    let repetitions: Int
    let samples: Int
    let warmup = 200

    struct Spec {
        let caseName: String
        let subject: String
        let kind: Figure.Kind
        let baseline: String?
        let sample: () -> UInt64
    }

    func measure(_ specs: [Spec]) -> [Figure] {
        if !plan.isolates {
            for spec in specs {
                for _ in 0..<warmup { _ = spec.sample() }
            }
        }
        var all = [[Double]](repeating: [], count: specs.count)
        var p50s = [[Double]](repeating: [], count: specs.count)
        var lost = [Int](repeating: 0, count: specs.count)
        for _ in 0..<repetitions {
            for (index, spec) in specs.enumerated() {
                var rep: [Double]
                if plan.isolates {
                    let variant = String(spec.caseName.prefix { $0 != "@" })
                    let child = Isolated.repetition(variant, subject: spec.subject, size: samples, warm: warmup)
                    guard child.ok, child.values.count == samples else {
                        lost[index] += 1
                        continue
                    }
                    rep = child.values.map { $0 / 1000 }
                } else {
                    rep = []
                    rep.reserveCapacity(samples)
                    for _ in 0..<samples { rep.append(Double(spec.sample()) / 1000) }
                }
                rep.sort()
                p50s[index].append(percentile(rep, 50))
                all[index].append(contentsOf: rep)
            }
        }
        return specs.indices.map { index in
            let spec = specs[index]
            let pooled = all[index].sorted()
            var m = Figure(
                scenario: HopScenario.name, caseName: spec.caseName, subject: spec.subject, kind: spec.kind, unit: "us",
                better: .lower, values: p50s[index], baseline: spec.baseline,
                note: lost[index] > 0 ? "\(lost[index]) of \(repetitions) repetitions lost: their process failed" : nil
            )
            m.samples = pooled.count
            m.percentiles = Percentiles(
                p50: percentile(pooled, 50), p90: percentile(pooled, 90), p99: percentile(pooled, 99),
                max: pooled.last ?? .nan
            )
            return m
        }
    }
}
