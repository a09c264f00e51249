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
        // 5 (--quick: 4) repetitions, the fewest `bench compare` can test (see `testableRepetitions`).
        let reps = context.plan.testableRepetitions
        let samples = context.plan.size(6_000, quick: 2_500)
        let sampler = Sampler(repetitions: reps, samples: samples)
        let size = "@" + sizeLabel(samples * reps)
        var results: [Measurement] = []

        Progress.note("hop: baselines")
        results.append(sampler.measure("hop.default" + size, subject: "dispatch", kind: .baseline) {
            dispatchHop(DispatchQueue.global())
        })
        let serialQueue = DispatchQueue(label: "bench.hop.serial")
        results.append(sampler.measure("hop.serial" + size, subject: "dispatch", kind: .baseline) {
            dispatchHop(serialQueue)
        })
        let handoff = CondvarHandoff()
        results.append(sampler.measure("hop.default" + size, subject: "pthreads", kind: .baseline) {
            handoff.hop()
        })
        handoff.stop()
        results.append(swiftHop(sampler, caseName: "hop.default" + size))

        for backend in context.backends {
            Progress.note("hop: \(backend.name)")
            for kind in [ExecutorKind.default, .serial] {
                let executor = kind.make(for: backend)
                // Serial hops have one baseline, a serial Dispatch queue; default hops the matching one.
                let baseline = kind == .serial ? "dispatch" : matchingBaseline(for: backend)
                results.append(sampler.measure(
                    "hop.\(kind.rawValue)" + size, subject: backend.name, kind: .backend, baseline: baseline
                ) {
                    backendHop(backend, executor)
                })
            }
        }
        return results
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
    /// from this thread.
    private static func swiftHop(_ sampler: Sampler, caseName: String) -> Measurement {
        let total = sampler.warmup + sampler.repetitions * sampler.samples
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
        return sampler.measure(caseName, subject: "swift", kind: .baseline) {
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

/// Collects latency samples in repetitions and summarizes them: the figure is the p50 of each
/// repetition (median, min, max over repetitions); percentiles pool every sample.
struct Sampler {
    let repetitions: Int
    let samples: Int
    let warmup = 200

    func measure(
        _ caseName: String, subject: String, kind: Measurement.Kind, baseline: String? = nil,
        _ sample: () -> UInt64
    ) -> Measurement {
        for _ in 0..<warmup { _ = sample() }
        var all: [Double] = []
        all.reserveCapacity(repetitions * samples)
        var p50s: [Double] = []
        for _ in 0..<repetitions {
            var rep: [Double] = []
            rep.reserveCapacity(samples)
            for _ in 0..<samples { rep.append(Double(sample()) / 1000) }
            rep.sort()
            p50s.append(percentile(rep, 50))
            all.append(contentsOf: rep)
        }
        all.sort()
        var m = Measurement(
            scenario: "hop", caseName: caseName, subject: subject, kind: kind, unit: "us",
            better: .lower, values: p50s, baseline: baseline
        )
        m.samples = all.count
        m.percentiles = Percentiles(
            p50: percentile(all, 50), p90: percentile(all, 90), p99: percentile(all, 99), max: all.last ?? .nan
        )
        return m
    }
}
