import Foundation
import TaskAPI

extension ProgramOperation {
    /// A combinator over `inputs` new sources of reference-typed values, completed by the driver
    /// in reverse order (those in `failing` fail). Logs its outcome and, with every other
    /// reference dropped, which inputs or values not returned it still keeps; `ProbeChecks`
    /// judges both (C5.1-C5.3, C5.5).
    public struct CombineProbed: OutsideWorkProbe, FormattedOperation {
        public var kind: CombinatorKind = .whenAll
        public var inputs = 0
        public var failing: [Int] = []

        static let format: StepFormat<Self> = "\(\.kind)(\(\.inputs) probed sources)\(\.failing, prefix: " failing ")"

        /// 0 to 32 inputs, a few of them failing now and then.
        static func generate(into program: inout ProgramBuilder) {
            let kind = program.combinatorKind()
            let count = program.rng.chance(15) ? 0 : program.rng.chance(50) ? program.rng.int(in: 1...6) : program.rng.int(in: 7...32)
            let failing = (0..<count).filter { _ in program.rng.chance(count > 1 && program.rng.chance(60) ? 0 : 20) }
            program.add(.combineProbed(kind: kind, inputs: count, failing: failing))
        }

        var neverWaits: Bool { false }
        var outsideWork: OutsideWork { .duringStep }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] { [.makeSourceOfType, .sourceTask, kind.entryPoint, .trySucceed, .tryFail, .waitTimeout] }

        func perform(in execution: ProgramExecution, step: Int) {
            ProbedCombination(probed: self, step: step, execution: execution).run()
        }

        /// The error input `index` fails with.
        static func error(_ index: Int) -> Int { 1_000 + index }

        /// The outcome the contract gives it (C5.1-C5.3): inputs complete last to first.
        var expectedOutcome: Outcome {
            let failing = Set(self.failing)
            func of(_ index: Int) -> Outcome { failing.contains(index) ? .failure(.program(Self.error(index))) : .success(index) }
            let completionOrder = Array((0..<inputs).reversed())
            switch kind {
            case .whenAll:
                if let first = completionOrder.first(where: failing.contains) { return of(first) }
                return .values(Array(0..<inputs))
            case .whenAllSettled:
                return .settled((0..<inputs).map(of))
            case .race:
                guard let first = completionOrder.first else { return .failure(.emptyInput("race")) }
                return of(first)
            case .any:
                if inputs == 0 { return .failure(.emptyInput("any")) }
                if let first = completionOrder.first(where: { !failing.contains($0) }) { return of(first) }
                return .failure(.aggregate((0..<inputs).map { .program(Self.error($0)) }))
            }
        }

        /// The rule its outcome is checked under.
        var outcomeRule: Rule { kind == .whenAll ? .c5_1 : kind == .whenAllSettled ? .c5_2 : .c5_3 }
    }

    public static func combineProbed(kind: CombinatorKind, inputs: Int, failing: [Int]) -> Self {
        .combineProbed(CombineProbed(kind: kind, inputs: inputs, failing: failing))
    }
}

/// A reference-typed value, so that the harness can tell when a combinator drops it (C5.5).
final class ProbeValue: Sendable {
    let id: Int
    init(_ id: Int) { self.id = id }
}

/// One `CombineProbed` step's run: sources of `ProbeValue`s, completed in reverse order,
/// combined; then its outcome and, with every other reference dropped, what it still keeps.
private struct ProbedCombination {
    let probed: ProgramOperation.CombineProbed
    let step: Int
    let execution: ProgramExecution

    func run() {
        let (combined, inputs, values) = combine()
        let observed = outcome(of: combined)
        execution.log.append(.probedCombined(step: step, result: observed))
        guard let observed else { return }
        // Values the result itself holds: every one for whenAll's values and whenAllSettled's
        // outcomes, the winner's for race and any.
        var returned: Set<Int> = []
        switch observed {
        case .values, .settled: returned = Set(0..<probed.inputs)
        case .success(let id): returned = [id]
        case .failure, .cancelled: break
        }
        let watched =
            inputs.enumerated().map { ("input \($0.offset)", $0.element) }
            + values.enumerated().filter { !returned.contains($0.offset) }.map { ("value of input \($0.offset)", $0.element) }
        let deadline = Uptime.now + execution.leakLimit
        var alive = watched.filter { $0.1.object != nil }
        while !alive.isEmpty, !deadline.hasPassed {
            usleep(500)
            alive = alive.filter { $0.1.object != nil }
        }
        withExtendedLifetime(combined) {}
        execution.log.append(.probedRetained(step: step, alive: alive.map(\.0)))
    }

    /// The combinator, with weak references to its inputs and their values; nothing else keeps them.
    private func combine() -> (AnyObject, [WeakReference], [WeakReference]) {
        let backend = execution.backend
        let count = probed.inputs
        let failing = Set(probed.failing)
        let sources = (0..<count).map { _ in backend.makeSource(of: ProbeValue.self) }
        let values = (0..<count).map { ProbeValue($0) }
        let tasks = sources.map { $0.task }
        let combined: AnyObject
        switch probed.kind {
        case .whenAll: combined = backend.whenAll(tasks)
        case .whenAllSettled: combined = backend.whenAllSettled(tasks)
        case .race: combined = backend.race(tasks)
        case .any: combined = backend.any(tasks)
        }
        for index in (0..<count).reversed() {
            if failing.contains(index) {
                sources[index].tryFail(ProgramError(ProgramOperation.CombineProbed.error(index)))
            } else {
                sources[index].trySucceed(values[index])
            }
        }
        return (combined, tasks.map { WeakReference($0) }, values.map { WeakReference($0) })
    }

    private func outcome(of combined: AnyObject) -> Outcome? {
        let limit = execution.timingSlack
        func probe(_ completion: Completion<ProbeValue>) -> Outcome { Outcome(completion.mapped { $0.id }) }
        if let task = combined as? any AsyncTask<[ProbeValue]> {
            return execution.boundedWait(task, limit: limit, step: step).map { Outcome($0.mapped { $0.map { $0.id } }) }
        }
        if let task = combined as? any AsyncTask<[Completion<ProbeValue>]> {
            return execution.boundedWait(task, limit: limit, step: step).map { completion in
                if case .success(let all) = completion { return .settled(all.map(probe)) }
                return Outcome(completion.mapped { _ in [Int]() })
            }
        }
        if let task = combined as? any AsyncTask<ProbeValue> { return execution.boundedWait(task, limit: limit, step: step).map(probe) }
        return nil
    }
}

extension ProgramOperation.CombineProbed {
    /// Its outcome is the contract's for its inputs completed last to first (a `nil` before the
    /// timeout is C6.2's, reported by `TimingChecks`: `boundedWait`); once complete, it keeps no
    /// input and no value it does not return (C5.5).
    func judgeProbe(_ event: EventKind, step: Int, slack: Duration) -> ProbeJudgement? {
        if case .probedCombined(_, let result) = event {
            let expected = expectedOutcome
            guard result != expected else { return ProbeJudgement(exercised: [outcomeRule]) }
            return ProbeJudgement(
                exercised: [outcomeRule],
                findings: [
                    Finding(
                        outcomeRule,
                        "step \(step) (\(kind.rawValue) of \(inputs) inputs completed last to first) completed with the wrong outcome",
                        expected: expected.description, observed: result?.description ?? "not completed in time")
                ])
        }
        if case .probedRetained(_, let alive) = event {
            guard !alive.isEmpty else { return ProbeJudgement(exercised: [.c5_5]) }
            return ProbeJudgement(
                exercised: [.c5_5],
                findings: [
                    Finding(
                        .c5_5, "step \(step): the completed \(kind.rawValue) keeps \(alive.count) of its inputs or their values alive",
                        expected: "released once it completed", observed: alive.prefix(5).joined(separator: ", "))
                ])
        }
        return nil
    }
}
