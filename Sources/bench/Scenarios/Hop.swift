import Dispatch
import Foundation
import TaskAPI

/// hop: latency from completing a source on one thread to the start of its continuation on
/// another executor; the raw baselines time the same hand-off written by hand.
///
/// A hop's latency is bimodal on its own: the thread that runs the continuation is either still
/// awake when the hop arrives or parked (a futex wake-up, and on a virtual machine the idle
/// processor's own wake-up on top: 15-30 us against 1-5 us). Which one a sample finds depends on
/// how long the previous hop left the threads idle, so the cases differ by their pacing
/// (`HopPacing`): `hop.default` and `hop.serial` take their samples back to back as they always
/// have (each sample finds either mode), `hop.default-warm` issues each hop as soon as the
/// previous one arrived (the threads awake), `hop.default-parked` after an idle gap long enough
/// for every pool to park its threads. Every subject of a case, baselines included, is paced the
/// same way.
enum HopScenario: Scenario {
    static let name = "hop"
    static let summary =
        "source completed on one thread -> continuation starts (default and serial executor; back to back, warm, parked); p50/p90/p99/max"

    static func run(_ context: ScenarioContext) -> [Figure] {
        let (specs, stop) = specs(context, total: context.plan.isolates ? 0 : nil)
        defer { stop() }
        return HopPacing.allCases.flatMap { pacing in
            let sampler = Sampler(plan: context.plan, pacing: pacing)
            let paced = specs.filter { $0.pacing == pacing }
            Progress.note(
                "hop\(pacing.suffix): \(paced.count) subjects, \(sampler.repetitions) rounds of \(sampler.samples) samples each"
                    + (context.plan.isolates ? ", a child process per repetition" : ""))
            return sampler.measure(paced)
        }
    }

    /// Every subject's sampler for every pacing, and what stops the condition-variable hand-offs
    /// once measured. The swift baseline's task resumes exactly `total` times (`nil`: as many as
    /// the pacing's sampler takes in process, warm-up included; isolated, each child has its own
    /// and the parent's takes none).
    static func specs(_ context: ScenarioContext, total: Int?) -> (specs: [Sampler.Spec], stop: () -> Void) {
        var specs: [Sampler.Spec] = []
        var stops: [() -> Void] = []
        for pacing in HopPacing.allCases {
            let sampler = Sampler(plan: context.plan, pacing: pacing)
            let made = pacedSpecs(
                context, pacing: pacing, total: total ?? sampler.warmup + sampler.repetitions * sampler.samples,
                size: "@" + sizeLabel(sampler.samples * sampler.repetitions))
            specs += made.specs
            stops.append(made.stop)
        }
        return (specs, { stops.forEach { $0() } })
    }

    /// The subjects of one pacing: `hop.default` (and, back to back, `hop.serial`) for the
    /// baselines and every backend.
    private static func pacedSpecs(
        _ context: ScenarioContext, pacing: HopPacing, total: Int, size: String
    ) -> (specs: [Sampler.Spec], stop: () -> Void) {
        let handoff = CondvarHandoff(arrival: Arrival(spins: pacing.spins))
        let defaultCase = "hop.default" + pacing.suffix + size
        let serialCase = pacing == .backToBack ? "hop.serial" + size : nil
        func spec(_ caseName: String, _ subject: String, _ baseline: String?, _ sample: @escaping () -> UInt64) -> Sampler.Spec {
            Sampler.Spec(
                caseName: caseName, subject: subject, kind: baseline == nil ? .baseline : .backend, baseline: baseline,
                pacing: pacing, sample: sample)
        }
        let arrival = Arrival(spins: pacing.spins)
        var specs = [
            spec(defaultCase, "dispatch", nil) { dispatchHop(DispatchQueue.global(), arrival) },
            spec(defaultCase, "pthreads", nil) { handoff.hop() },
            spec(defaultCase, "swift", nil, swiftHop(total: total, spins: pacing.spins))
        ]
        if let serialCase {
            let serialQueue = DispatchQueue(label: "bench.hop.serial")
            specs.insert(spec(serialCase, "dispatch", nil) { dispatchHop(serialQueue, arrival) }, at: 1)
        }
        for backend in context.backends {
            for (kind, caseName) in [(ExecutorKind.default, defaultCase), (.serial, serialCase)] {
                guard let caseName else { continue }
                let executor = kind.make(for: backend)
                // Serial hops have one baseline, a serial Dispatch queue; default hops the matching one.
                let baseline = kind == .serial ? "dispatch" : matchingBaseline(for: backend)
                specs.append(spec(caseName, backend.name, baseline) { backendHop(backend, executor, arrival) })
            }
        }
        return (specs, handoff.stop)
    }

    private static func dispatchHop(_ queue: DispatchQueue, _ arrival: Arrival) -> UInt64 {
        let start = monotonicNanos()
        queue.async { arrival.arrive() }
        return arrival.wait() &- start
    }

    private static func backendHop(_ backend: any TaskBackend, _ executor: any AsyncTaskExecutor, _ arrival: Arrival) -> UInt64 {
        let source = backend.makeSource(of: Int.self)
        source.task.whenComplete(on: executor) { _ in arrival.arrive() }
        let start = monotonicNanos()
        source.trySucceed(1)
        return arrival.wait() &- start
    }

    /// Raw Swift concurrency: a detached task suspended in `withCheckedContinuation`, resumed
    /// from this thread; the sampler calls the returned closure exactly `total` times. With
    /// `spins`, this thread polls for the task's arrival and for its next suspension instead of
    /// sleeping on them.
    private static func swiftHop(total: Int, spins: Bool) -> () -> UInt64 {
        let slot = LockedBox<CheckedContinuation<Void, Never>?>(nil)
        let ready = Arrival(spins: spins)
        let resumed = Arrival(spins: spins)
        Task.detached {
            for _ in 0..<total {
                await withCheckedContinuation { continuation in
                    slot.withLock { $0 = continuation }
                    ready.arrive()
                }
                resumed.arrive()
            }
        }
        return {
            _ = ready.wait()
            let continuation = slot.withLock { slot in
                defer { slot = nil }
                return slot
            }
            let start = monotonicNanos()
            continuation?.resume()
            return resumed.wait() &- start
        }
    }
}

/// How the hop sampler paces its samples (docs/BENCHMARKS.md, "Ratio stability"): what the
/// threads that run a hop are doing when it arrives. Every subject of a case is paced alike.
enum HopPacing: CaseIterable, Sendable {
    /// The next hop as soon as the sampling thread, asleep until the previous hop arrived, wakes
    /// up (`hop.default`, `hop.serial`): each hop finds the threads awake or parked, by chance.
    case backToBack
    /// The next hop as soon as the previous one arrived, which the sampling thread polls for
    /// instead of sleeping (`hop.default-warm`): the thread that ran the previous hop has not
    /// parked yet.
    case warm
    /// The next hop after `parkedGap` of sleep (`hop.default-parked`): every pool's idle threads
    /// have parked (the kit's poll for about 70 us, Dispatch's none) and the idle processors
    /// halted.
    case parked

    /// The case name's suffix after `hop.default`.
    var suffix: String {
        switch self {
        case .backToBack: ""
        case .warm: "-warm"
        case .parked: "-parked"
        }
    }

    /// Whether the sampling thread polls for a hop's arrival rather than sleeping until it.
    var spins: Bool { self == .warm }

    /// Whether each backend is measured in one child process with its baseline, their samples
    /// interleaved (`Sampler.groups`): the paced cases. A process keeps the mode it lands in for
    /// its life (which processor its threads sit on, whether a pool's worker is caught awake), so
    /// one process per subject made each round's ratio a comparison of two processes' modes.
    var pairs: Bool { self != .backToBack }

    /// The idle gap before each parked hop.
    static let parkedGap: Duration = .milliseconds(1)

    /// Called before each sample.
    func pause() {
        switch self {
        case .backToBack, .warm: break
        case .parked:
            let (seconds, attoseconds) = Self.parkedGap.components
            var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            var remaining = timespec()
            while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
        }
    }

    /// Samples per repetition and warm-up samples: a parked hop costs its gap, and a warm one,
    /// whose sampling thread yields the processor while it polls, a scheduler's turn now and then
    /// on a loaded machine (6,000 warm samples took 0.5 s a repetition at load 5), so fewer.
    func samples(_ plan: Plan) -> (samples: Int, warmup: Int) {
        switch self {
        case .backToBack: (plan.size(6_000, quick: 2_000), 200)
        case .warm: (plan.size(2_000, quick: 1_000), 200)
        case .parked: (plan.size(300, quick: 100), 20)
        }
    }
}

/// Collects latency samples in rounds (see `RoundRobin`): each round takes `samples` samples of
/// every subject in turn, after `warmup` samples of each, paced by `pacing`. A figure is the p50
/// of each repetition (median, min, max over repetitions); its percentiles pool every sample.
/// When the plan isolates, each repetition is a child process of its own (see `Isolated`),
/// warmed up there.
struct Sampler {
    let plan: Plan
    let pacing: HopPacing
    let repetitions: Int
    let samples: Int
    let warmup: Int

    init(plan: Plan, pacing: HopPacing) {
        self.plan = plan
        self.pacing = pacing
        // 5 repetitions by default: what `bench compare` needs to test a figure (see
        // `testableRepetitions`); more with `--rounds`.
        repetitions = plan.rounds
        (samples, warmup) = pacing.samples(plan)
    }

    struct Spec {
        let caseName: String
        let subject: String
        let kind: Figure.Kind
        let baseline: String?
        let pacing: HopPacing
        let sample: () -> UInt64

        /// One paced sample.
        func paced() -> UInt64 {
            pacing.pause()
            return sample()
        }
    }

    /// The subjects a round measures together, by index into `specs`: each alone, except that a
    /// paced case (`HopPacing.pairs`) measures each backend in one process with its baseline, their
    /// samples interleaved (a baseline that an earlier backend of the round took stays with that
    /// one; a baseline no backend names is measured alone).
    func groups(_ specs: [Spec]) -> [[Int]] {
        guard pacing.pairs else { return specs.indices.map { [$0] } }
        var claimed = Set<Int>()
        var groups: [[Int]] = []
        for (index, spec) in specs.enumerated() where spec.kind == .backend {
            let partner = specs.indices.first {
                specs[$0].kind == .baseline && specs[$0].caseName == spec.caseName && specs[$0].subject == spec.baseline
            }
            if let partner, !claimed.contains(partner) {
                claimed.insert(partner)
                groups.append([index, partner])
            } else {
                groups.append([index])
            }
        }
        return groups + specs.indices.filter { specs[$0].kind == .baseline && !claimed.contains($0) }.map { [$0] }
    }

    func measure(_ specs: [Spec]) -> [Figure] {
        if !plan.isolates {
            for spec in specs {
                for _ in 0..<warmup { _ = spec.paced() }
            }
        }
        var all = [[Double]](repeating: [], count: specs.count)
        var p50s = [[Double]](repeating: [], count: specs.count)
        var lost = [Int](repeating: 0, count: specs.count)
        func record(_ index: Int, _ values: [Double]) {
            let rep = values.map { $0 / 1000 }.sorted()
            p50s[index].append(percentile(rep, 50))
            all[index].append(contentsOf: rep)
        }
        for _ in 0..<repetitions {
            for group in groups(specs) {
                guard plan.isolates else {
                    for index in group { record(index, (0..<samples).map { _ in Double(specs[index].paced()) }) }
                    continue
                }
                let variant = String(specs[group[0]].caseName.prefix { $0 != "@" })
                let subject = group.map { specs[$0].subject }.joined(separator: Isolated.pairSeparator)
                let child = Isolated.repetition(variant, subject: subject, size: samples, warm: warmup)
                guard child.ok, child.values.count == samples * group.count else {
                    for index in group { lost[index] += 1 }
                    continue
                }
                for (offset, index) in group.enumerated() {
                    record(index, Array(child.values[(offset * samples)..<((offset + 1) * samples)]))
                }
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
