/// The entry points of TaskAPI a program called, and how many checks judged each: what the
/// entry point coverage table counts (`ConformanceReport.entryPointTable`). A check that judges
/// a step (its task's outcome, a setter's result, a body, a wait, a timer...) judges every entry
/// point that step called.
struct EntryPointTally {
    private(set) var checks: [EntryPoint: Int] = [:]
    let program: Program

    init(program: Program) {
        self.program = program
    }

    /// One check judged step `step`.
    mutating func judge(_ step: Int) {
        guard step >= 0, step < program.steps.count else { return }
        for entryPoint in Set(program.steps[step].operation.payload.entryPoints) { checks[entryPoint, default: 0] += 1 }
    }

    /// One check judged each of `steps`.
    mutating func judge(_ steps: [Int]) {
        for step in steps { judge(step) }
    }

    /// One check judged the cancellation sources `tokens` (the steps that made them).
    mutating func judge(tokens: [Int]) {
        judge(program.steps.indices.filter { program.steps[$0].operation.createdToken.map(tokens.contains) ?? false })
    }

    mutating func merge(_ other: EntryPointTally) {
        checks.merge(other.checks, uniquingKeysWith: +)
    }
}

extension Conformance {
    /// The entry points of TaskAPI the steps of `program` call (`EntryPoint`).
    public static func entryPoints(of program: Program) -> Set<EntryPoint> {
        Set(program.steps.flatMap(\.operation.payload.entryPoints))
    }
}
