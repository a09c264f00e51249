import BackendGCD
import Conformance
import TaskAPI
import Testing

/// The `mapKeepingType` operation (issue 29: adding an operation is one file plus its case): its
/// task is judged as the `map` it makes, whether the backend answers the shortcut (BackendKit's
/// tasks do) or answers `nil` and gets `map(on:token:_:)` (the reference backend).
struct MapKeepingTypeTests {
    /// `t1 = t0.mapKeepingType(on: counting0) { returns }` on a pending source, then completed.
    static let program = Program(
        seed: 1, drivers: 1, serialExecutors: 0, countingExecutors: 1,
        steps: [
            .makeSource(task: 0, held: nil),
            .mapKeepingType(task: 1, antecedent: 0, executor: .counting(0), body: .returns),
            .complete(source: 0, outcome: .success, throwing: false)
        ].map { Step(driver: 0, operation: $0, pause: .none) })

    @Test("its one line of text reads back")
    func textAndGeneration() throws {
        #expect(try Program(parsing: Self.program.description) == Self.program)
        #expect(Self.program.steps[1].operation.description == "t1 = t0.mapKeepingType(on: counting0) { returns }")
    }

    @Test("C2.5: a correct backend passes with the shortcut or without; one that ignores a user executor is caught")
    func judgedAsMap() async {
        for backend: any TaskBackend in [GCDBackend(), ReferenceBackend()] {
            let run = await Conformance.runProgram(backend, program: Self.program, mode: .stress)
            #expect(run.findings.isEmpty, "\(backend.name): \(run.findings)")
        }
        let wrong = await Conformance.runProgram(ReferenceBackend(.wrongExecutor), program: Self.program, mode: .stress)
        #expect(wrong.findings.contains { $0.rule == .c2_5 }, "\(wrong.findings)")
    }
}
