import Conformance
import TaskAPI
import Testing

/// Found by an outside backend written from docs/WRITING_A_BACKEND.md: its delivery, one job of
/// the thread's trampoline, handed inline continuations to the inline executor, which queued
/// them behind that very job. Once the delivery phase ended, an inline registration made on
/// another thread ran in place before them, and the programs reported C2.4 ("the inline
/// continuation t1 of t0 ran before ... the harness's observer") and C9.11 (a work group's count
/// moved before the observer saw its task complete). A trampoline slow to get to its next job
/// made it common (17 of 535 programs); the guide's shape now runs them in place, inside the
/// delivery, as the reference backend and the kit do.
@Suite struct InlineDeliveryOrderTests {
    /// The shrunk counterexample: d1 completes t0 while d0 registers an inline continuation.
    static let program = """
        program seed=13700123495956967937 drivers=2 serial=0 counting=0 steps=3
           0 d0 t0 = makeSource(of: Int.self)  ~sleep(138us)
           1 d0 t1 = t0.whenComplete(on: inline) { echo }  ~spin(1040)
           2 d1 t0.trySucceed(v)
        """
    static let runs = 200

    static func c2_4Findings(inlineInPlace: Bool) throws -> Int {
        let program = try Program(parsing: Self.program)
        var found = 0
        for _ in 0..<runs {
            let run = Conformance.runProgram(SlowTrampolineBackend(inlineInPlace: inlineInPlace), program: program, mode: .stress)
            if run.findings.contains(where: { $0.rule == .c2_4 }) { found += 1 }
        }
        return found
    }

    @Test("C2.4: a delivery that runs inline continuations in place is never overtaken, however slow its trampoline")
    func inPlaceDeliveryKeepsOrder() throws {
        #expect(try Self.c2_4Findings(inlineInPlace: true) == 0)
    }

    /// What the guide's shape did: the checks see it (this is what the guide's fix is for).
    @Test("C2.4: inline continuations queued behind the delivery are overtaken by a registration on another thread")
    func queuedInlineDeliveryIsOvertaken() throws {
        let found = try Self.c2_4Findings(inlineInPlace: false)
        #expect(found > 0, "\(found) of \(Self.runs) runs")
    }
}
