import Dispatch
import Testing

@testable import bench

/// The hop's pacing is a controlled variable (docs/BENCHMARKS.md, "Ratio stability"): each paced
/// case has the same subjects and baselines, and every subject of a case is paced alike.
@Suite struct HopPacingTests {
    @Test("every pacing's default case has the three baselines and each backend against its matching one")
    func sameBaselinesForEveryPacing() {
        let context = ScenarioContext(backends: backendRegistry, plan: Plan(quick: true, cores: 2, budget: 1))
        let (specs, stop) = HopScenario.specs(context, total: 0)
        defer { stop() }
        for pacing in HopPacing.allCases {
            let cases = specs.filter { $0.caseName.hasPrefix("hop.default" + pacing.suffix + "@") }
            #expect(cases.allSatisfy { $0.pacing == pacing })
            #expect(cases.filter { $0.kind == .baseline }.map(\.subject) == ["dispatch", "pthreads", "swift"])
            #expect(cases.filter { $0.kind == .backend }.map(\.subject) == backendRegistry.map(\.name))
            #expect(cases.compactMap(\.baseline) == backendRegistry.map(matchingBaseline))
        }
        // Only the back-to-back pacing measures the serial executor too.
        #expect(Set(specs.filter { $0.caseName.hasPrefix("hop.serial@") }.map(\.pacing)) == [.backToBack])
    }

    @Test("a paced case measures each backend with its baseline in one process; back to back, each alone")
    func pacedCasesPairEachBackendWithItsBaseline() {
        let context = ScenarioContext(backends: backendRegistry, plan: Plan(quick: false, cores: 2, budget: 1))
        let (specs, stop) = HopScenario.specs(context, total: 0)
        defer { stop() }
        for pacing in HopPacing.allCases {
            let paced = specs.filter { $0.pacing == pacing }
            let groups = Sampler(plan: context.plan, pacing: pacing).groups(paced)
            // Every subject once a round.
            #expect(groups.flatMap { $0 }.sorted() == Array(paced.indices))
            for group in groups {
                let subjects = group.map { paced[$0] }
                if pacing.pairs, let backend = subjects.first, backend.kind == .backend {
                    #expect(subjects.count == 2)
                    #expect(subjects.last?.subject == backend.baseline && subjects.last?.caseName == backend.caseName)
                } else {
                    #expect(subjects.count == 1)
                }
            }
        }
        // Two backends naming one baseline: the first takes it, the second is measured alone.
        let shared = specs.filter { $0.pacing == .parked }.filter { $0.subject != "pthreads" && $0.subject != "swift" }
            .map { spec in
                Sampler.Spec(
                    caseName: spec.caseName, subject: spec.subject, kind: spec.kind,
                    baseline: spec.kind == .backend ? "dispatch" : nil, pacing: spec.pacing, sample: spec.sample)
            }
        let groups = Sampler(plan: context.plan, pacing: .parked).groups(shared)
        #expect(groups.map(\.count) == [2] + [Int](repeating: 1, count: backendRegistry.count - 1))
    }

    @Test("a parked hop waits the idle gap first; the others do not wait")
    func parkedPausesTheGap() {
        let start = monotonicNanos()
        HopPacing.parked.pause()
        let parked = monotonicNanos() - start
        #expect(Duration.nanoseconds(parked) >= HopPacing.parkedGap)
        #expect(
            HopPacing.parked.samples(Plan(quick: false, cores: 2, budget: 1)).samples
                < HopPacing.warm.samples(Plan(quick: false, cores: 2, budget: 1)).samples)
        #expect(!HopPacing.backToBack.spins && HopPacing.warm.spins && !HopPacing.parked.spins)
    }

    @Test("an arrival is waited for by polling or by sleeping, and its time read once", arguments: [false, true])
    func arrivalCarriesItsTime(spins: Bool) {
        let arrival = Arrival(spins: spins)
        let before = monotonicNanos()
        DispatchQueue.global().async { arrival.arrive() }
        let arrived = arrival.wait()
        #expect(arrived >= before && arrived <= monotonicNanos())
        DispatchQueue.global().async { arrival.arrive() }
        #expect(arrival.wait() >= arrived)
    }
}
