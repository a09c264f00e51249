import Conformance
import Testing

/// Shrinking (issue 22, friction: "shrinking used up its 10 s budget at 87 of 177 steps"): chunks
/// removed as delta debugging does, down to a program no single step of which can go, and a
/// report that says when the budget stopped it and where it was.
@Suite struct ShrinkerTests {
    static func configuration(shrink: Duration) -> ConformanceConfiguration {
        var configuration = ConformanceConfiguration(baseSeed: 11, programs: 300, output: { _ in })
        configuration.resourceLinks = 0
        configuration.mode = .controlled(.randomWalk)
        configuration.maxFailingPrograms = 1
        configuration.shrinkTimeBudget = shrink
        return configuration
    }

    @Test("a shrunk controlled counterexample is 1-minimal: without any one of its steps it passes")
    func shrunkProgramIsOneMinimal() async throws {
        let report = await Conformance.check(
            makeBackend: { ReferenceBackend(.lifoContinuations) }, configuration: Self.configuration(shrink: .seconds(60)))
        let failure = try #require(report.failures.first)
        let shrunk = try #require(failure.shrunkProgram)
        let mode = try #require(failure.shrunkMode)
        #expect(failure.shrinkStoppedAt == nil && failure.description.contains("no smaller candidate fails"), "\(failure)")
        #expect(shrunk.steps.count < failure.originalSize)
        for index in shrunk.steps.indices {
            var smaller = shrunk
            smaller.steps.remove(at: index)
            let run = await Conformance.runProgram(ReferenceBackend(.lifoContinuations), program: Conformance.repaired(smaller), mode: mode)
            #expect(!run.findings.contains { $0.rule == failure.rule }, "step \(index) of\n\(shrunk)\ncould go too")
        }
    }

    @Test("a shrink stopped by its budget says so, and where it was")
    func aShrinkStoppedByItsBudgetSaysSo() async throws {
        let report = await Conformance.check(
            makeBackend: { ReferenceBackend(.lifoContinuations) },
            configuration: Self.configuration(shrink: .microseconds(1)))
        let failure = try #require(report.failures.first)
        let stage = try #require(failure.shrinkStoppedAt, "\(failure)")
        #expect(failure.description.contains("stopped by its time budget while \(stage) (CONFORMANCE_SHRINK"), "\(failure)")
    }
}
