/// Which tasks a program hands the backend as tasks of a class it does not know (contract 1.4:
/// C2.6, C5.1-C5.3): a combinator's inputs, and the task the body of a continuation or of `runTask`
/// returns for the form to unwrap, wrapped in a `ForeignTask` (the backend's own task, served
/// through a class of the conformance library's), whose outcome is the wrapped task's, so the model
/// expects of the step what it expects of it unwrapped.
///
/// Drawn from a stream of its own, `SplitMix64(seed: seed ^ salt)`, once the program's steps are
/// made (`ProgramGenerator.program(seed:)`): the main stream and the kinds' own streams are left
/// as they were, so a program has every step it had before foreign tasks came, the same text but
/// for the `foreign` marks (`t5 = whenAll([t1, foreign t3])`, `t6 = t2.flatMap->foreign new(...)`);
/// `ProgramTextGoldenTests` checks that the texts with the marks removed are those of before.
/// Each step that can take a foreign task asks the stream (`OperationPayload.markedForeign`), in
/// step order; a step that takes none draws nothing.
enum ForeignStream {
    /// Mixed into the program's seed: the stream's seed ("foreignT").
    static let salt: UInt64 = 0x666F_7265_6967_6E54
    /// How often a step that can take a foreign task takes some, in percent.
    static let stepChance = 30

    /// What a step's text writes before a task it hands the backend as a `ForeignTask`.
    static let mark = "foreign "

    /// `item` (`t3`, `new`), with the mark before it when `foreign`.
    static func text(_ item: String, foreign: Bool) -> String { foreign ? mark + item : item }

    /// `steps` with the foreign marks the stream of `seed` draws.
    static func marked(_ steps: [Step], seed: UInt64) -> [Step] {
        var rng = SplitMix64(seed: seed ^ salt)
        return steps.map { step in
            guard let marked = step.operation.payload.markedForeign(&rng) else { return step }
            return Step(driver: step.driver, operation: marked, pause: step.pause)
        }
    }

    /// Of `count` inputs, the positions a step that takes foreign inputs wraps: none for most
    /// steps (`stepChance`); else each with even odds, at least one.
    static func inputs(of count: Int, _ rng: inout SplitMix64) -> Set<Int> {
        guard count > 0, rng.chance(stepChance) else { return [] }
        var positions = Set((0..<count).filter { _ in rng.chance(50) })
        if positions.isEmpty { positions.insert(rng.below(count)) }
        return positions
    }
}
