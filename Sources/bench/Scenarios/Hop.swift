import Dispatch
import TaskAPI

/// hop: latency from completing a source on one thread to the start of its continuation on
/// another executor; the raw baselines time the same hand-off written by hand.
enum HopScenario {
    static let entry = ScenarioEntry(
        name: "hop",
        summary: "source completed on one thread -> continuation starts (default and serial executor); p50/p90/p99/max",
        run: run
    )

    static func run(_ context: ScenarioContext) -> [Measurement] {
        // 5 repetitions: what `bench compare` needs to test a figure (see `testableRepetitions`).
        let reps = context.plan.testableRepetitions
        let samples = context.plan.size(6_000, quick: 2_000)
        let sampler = Sampler(repetitions: reps, samples: samples)
        let size = "@" + sizeLabel(samples * reps)
        let serialQueue = DispatchQueue(label: "bench.hop.serial")
        let handoff = CondvarHandoff()
        defer { handoff.stop() }
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
            Sampler.Spec(caseName: "hop.default" + size, subject: "swift", kind: .baseline, baseline: nil,
                         sample: swiftHop(total: sampler.warmup + reps * samples)),
        ]
        for backend in context.backends {
            for kind in [ExecutorKind.default, .serial] {
                let executor = kind.make(for: backend)
                // Serial hops have one baseline, a serial Dispatch queue; default hops the matching one.
                let baseline = kind == .serial ? "dispatch" : matchingBaseline(for: backend)
                specs.append(Sampler.Spec(caseName: "hop.\(kind.rawValue)" + size, subject: backend.name,
                                          kind: .backend, baseline: baseline) {
                    backendHop(backend, executor)
                })
            }
        }
        Progress.note("hop: \(specs.count) subjects, \(reps) rounds of \(samples) samples each")
        return sampler.measure(specs)
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

    private static func backendHop(_ backend: any TaskBackend, _ executor: any Executor) -> UInt64 {
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
/// every subject in turn. A figure is the p50 of each repetition (median, min, max over
/// repetitions); its percentiles pool every sample.
struct Sampler {
    let repetitions: Int
    let samples: Int
    let warmup = 200

    struct Spec {
        let caseName: String
        let subject: String
        let kind: Measurement.Kind
        let baseline: String?
        let sample: () -> UInt64
    }

    func measure(_ specs: [Spec]) -> [Measurement] {
        for spec in specs {
            for _ in 0..<warmup { _ = spec.sample() }
        }
        var all = [[Double]](repeating: [], count: specs.count)
        var p50s = [[Double]](repeating: [], count: specs.count)
        for _ in 0..<repetitions {
            for (index, spec) in specs.enumerated() {
                var rep: [Double] = []
                rep.reserveCapacity(samples)
                for _ in 0..<samples { rep.append(Double(spec.sample()) / 1000) }
                rep.sort()
                p50s[index].append(percentile(rep, 50))
                all[index].append(contentsOf: rep)
            }
        }
        return specs.indices.map { index in
            let spec = specs[index]
            let pooled = all[index].sorted()
            var m = Measurement(
                scenario: "hop", caseName: spec.caseName, subject: spec.subject, kind: spec.kind, unit: "us",
                better: .lower, values: p50s[index], baseline: spec.baseline
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
