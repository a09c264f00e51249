/// The entry points of TaskAPI a program called, and how many checks judged each: what the
/// entry point coverage table counts (`ConformanceReport.entryPointTable`). A check that judges
/// a step (its task's outcome, a setter's result, a body, a wait, a timer...) judges every entry
/// point that step called. Judging counts per step; the counts per entry point are made once.
struct EntryPointTally {
    private var judgedSteps: [Int]
    let program: Program

    init(program: Program) {
        self.program = program
        judgedSteps = Array(repeating: 0, count: program.steps.count)
    }

    /// How many checks judged a step that called each entry point.
    var checks: [EntryPoint: Int] {
        var checks: [EntryPoint: Int] = [:]
        for (step, count) in judgedSteps.enumerated() where count > 0 {
            for entryPoint in Set(program.steps[step].operation.payload.entryPoints) { checks[entryPoint, default: 0] += count }
        }
        return checks
    }

    /// One check judged step `step`.
    mutating func judge(_ step: Int) {
        guard step >= 0, step < judgedSteps.count else { return }
        judgedSteps[step] += 1
    }

    /// One check judged each of `steps`.
    mutating func judge(_ steps: [Int]) {
        for step in steps { judge(step) }
    }

    /// One check judged the cancellation sources `tokens` (the steps that made them).
    mutating func judge(tokens: [Int]) {
        for (index, step) in program.steps.enumerated() where step.operation.createdToken.map(tokens.contains) ?? false { judge(index) }
    }

    mutating func merge(_ other: EntryPointTally) {
        for (step, count) in other.judgedSteps.enumerated() where step < judgedSteps.count { judgedSteps[step] += count }
    }
}

extension Conformance {
    /// The entry points of TaskAPI the steps of `program` call (`EntryPoint`).
    public static func entryPoints(of program: Program) -> Set<EntryPoint> {
        Set(program.steps.flatMap(\.operation.payload.entryPoints))
    }
}
