import Conformance
import TaskAPI
import Testing

/// The checks ask a step's facts, not its kind (issue 29, item 4): a kind that states a fact
/// gets every check of it. A factory's `delay` states its timer as `delay` does, so a backend
/// whose timers fire early breaks C5.4 through the factory too (before the facts, the timing
/// checks matched the `delay` kind only, and passed a factory's early delay).
struct OperationFactsTests {
    static func program(_ steps: [ProgramOperation]) -> Program {
        Program(
            seed: 1, drivers: 1, serialExecutors: 0, countingExecutors: 0,
            steps: steps.map { Step(driver: 0, operation: $0, pause: .none) })
    }

    /// 300 ms, not the programs' 0-2 ms: the mutant fires a delay after a thousandth of it, and a
    /// busy process (the tests run side by side) can log that firing 2 ms late, on time.
    @Test("C5.4: a factory's delay is judged as a delay")
    func aFactoryDelayIsJudgedAsADelay() async {
        let program = Self.program([
            .factory(
                ProgramOperation.FactoryCall(
                    task: 0, call: .delay(microseconds: 300_000), construction: .initializer, executor: .default, token: nil,
                    body: .returns))
        ])
        let correct = await Conformance.runProgram(ReferenceBackend(), program: program, mode: .stress)
        #expect(correct.findings.isEmpty, "\(correct.findings)")
        let early = await Conformance.runProgram(ReferenceBackend(.timersEarly), program: program, mode: .stress)
        #expect(early.findings.contains { $0.rule == .c5_4 && $0.message.contains("t0 completed with success(0)") }, "\(early.findings)")
    }
}
