@_spi(Mutants) import BackendGCD
@testable import Conformance
import Foundation
import TaskAPI
import Testing

/// Measures, not checks: `EXHAUSTIVE_MEASURE=1`.
@Suite(.serialized) struct ExhaustiveMeasures {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["EXHAUSTIVE_MEASURE"] != nil))
    func measure() {
        var configuration = ConformanceConfiguration(output: { _ in })
        configuration.explorationTimeLimit = .seconds(60)
        for bound in [0, 1, 2, 3] {
            for mutation in [Mutation.none, .registrationMissesDeliveryEnd] {
                let report = Conformance.explore(makeBackend: { ReferenceBackend(mutation) }, program: ExhaustiveTests.program,
                                                 preemptions: bound, configuration: configuration)
                print("measure \(mutation) bound=\(bound): \(report)")
            }
            let report = Conformance.explore(makeBackend: { GCDBackend(drainers: 1) }, program: ExhaustiveTests.program,
                                             preemptions: bound, configuration: configuration)
            print("measure gcd1 bound=\(bound): \(report)")
        }
    }
}
