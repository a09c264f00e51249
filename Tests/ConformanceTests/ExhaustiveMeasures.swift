@_spi(Testing) import BackendGCD
import Foundation
import TaskAPI
import Testing

@testable import Conformance

/// Measures, not checks (docs/CONFORMANCE.md, "Bounded-exhaustive exploration"), with
/// `EXHAUSTIVE_MEASURE=1`: how many schedules each bound explores on `ExhaustiveTests.program`
/// (correct and mutant reference backend, and the GCD backend on seats), how often a random walk
/// and PCT find the mutant in 1,000 schedules of the same program, and what a default-sized
/// check in exhaustive mode costs per backend.
@Suite(.serialized) struct ExhaustiveMeasures {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["EXHAUSTIVE_MEASURE"] != nil))
    func measure() {
        var configuration = ConformanceConfiguration(output: { _ in })
        configuration.explorationTimeLimit = .seconds(60)
        for bound in [0, 1, 2, 3] {
            for mutation in [Mutation.none, .registrationMissesDeliveryEnd] {
                let report = Conformance.explore(
                    makeBackend: { ReferenceBackend(mutation) }, program: ExhaustiveTests.program,
                    preemptions: bound, configuration: configuration)
                print("measure \(mutation) bound=\(bound): \(report)")
            }
            let report = Conformance.explore(
                makeBackend: { GCDBackend(drainers: 1) }, program: ExhaustiveTests.program,
                preemptions: bound, configuration: configuration)
            print("measure gcd1 bound=\(bound): \(report)")
        }
        for base in [ScheduleStrategy.randomWalk, .pct(depth: 2), .pct(depth: 3)] {
            var found = 0
            let start = Uptime.now
            for number in 1...1_000 {
                let run = Conformance.runProgram(
                    ReferenceBackend(.registrationMissesDeliveryEnd), program: ExhaustiveTests.program,
                    mode: .controlled(.schedule(number, of: base)), configuration: configuration)
                if !run.findings.isEmpty { found += 1 }
            }
            print("measure \(base): found in \(found) of 1000 schedules (\(Uptime.now - start))")
        }
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["EXHAUSTIVE_CHECK_MEASURE"] != nil))
    func checkMeasure() {
        let backends: [(String, @Sendable () -> any TaskBackend)] = [
            ("reference", { ReferenceBackend() }), ("gcd", { GCDBackend() })
        ]
        for (name, make) in backends {
            var configuration = ConformanceConfiguration(programs: 30, output: { _ in })
            configuration.resourceLinks = 0
            configuration.mode = .controlled(.exhaustive(preemptions: 2))
            configuration.explorationTimeLimit = .seconds(10)
            let report = Conformance.check(makeBackend: make, configuration: configuration)
            print(
                "measure check \(name): \(report.description.split(separator: "\n").prefix(1).joined()) | \(report.exploration?.summary ?? "-")"
            )
        }
    }
}
