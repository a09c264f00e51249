import Conformance
import TaskAPI
import Testing

/// A controlled failure's replay line (its seed and mode), run twice, each on a new backend from
/// `make`: the same finding, no work from outside control, the same event log both times.
enum ExactReplay {
    static func expect(
        _ failure: ConformanceFailure, on make: @Sendable () -> any TaskBackend,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let first = await Conformance.runProgram(make(), seed: failure.seed, mode: failure.mode)
        let second = await Conformance.runProgram(make(), seed: failure.seed, mode: failure.mode)
        #expect(
            first.findings.contains { $0.rule == failure.rule }, "replay of seed \(failure.seed) found \(first.findings)",
            sourceLocation: sourceLocation)
        #expect(first.notReproducible.isEmpty, "\(first.notReproducible)", sourceLocation: sourceLocation)
        #expect(!first.eventLines.isEmpty && first.eventLines == second.eventLines, sourceLocation: sourceLocation)
        #expect(first.findings.map(\.rule) == second.findings.map(\.rule), sourceLocation: sourceLocation)
    }
}
