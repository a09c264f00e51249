@testable import Conformance
import TaskAPI
import Testing

/// The bounded-exhaustive strategy (issue 22, point 4).
@Suite struct ExhaustiveTests {
    /// d0 makes a source, d1 completes it, d2 registers a continuation on it: the
    /// `registrationMissesDeliveryEnd` mutant loses that continuation only when d1 is stopped
    /// between winning and delivering, and d2 between its two sections.
    static let program = Program(seed: 1, drivers: 3, serialExecutors: 0, countingExecutors: 0, steps: [
        Step(driver: 0, operation: .makeSource(task: 0, held: nil), pause: .none),
        Step(driver: 1, operation: .complete(source: 0, outcome: .success, throwing: false), pause: .none),
        Step(driver: 2, operation: .chain(task: 1, kind: .map, antecedent: 0, executor: .default, token: nil, body: .returns),
             pause: .none),
    ])
}
