import Conformance
import Foundation
import TaskAPI
import Testing

/// Generated programs hand the backend tasks of a class it does not know (contract 1.4: C2.6,
/// C5.1-C5.3): combinator inputs and the tasks continuations' and `runTask`'s bodies return for
/// the form to unwrap, marked `foreign` in a step's text and wrapped in a `ForeignTask` when it runs, drawn
/// from a stream of the seed's own (`ForeignStream`). The outside backends that mishandle such
/// tasks, which the rule suite's foreign-input checks catch (`ForeignInputCheckTests`), are caught
/// by programs alone too, under the same rules; the shrunk counterexample keeps its foreign task,
/// and the same program with every mark removed passes. The package's backends pass the programs
/// (`BackendConformanceTests`, `ControlledReplayTests`).
@Suite struct ForeignProgramTests {
    /// Programs only (no resource checks; `Conformance.check` runs no rule check), controlled
    /// (a random walk: no timers, whose windows a crowded machine may miss, and a schedule the
    /// seed fixes), until the first failing program, which is shrunk.
    static func configuration(baseSeed: UInt64) -> ConformanceConfiguration {
        var configuration = ConformanceConfiguration(baseSeed: baseSeed, programs: 400, output: { _ in })
        configuration.resourceLinks = 0
        configuration.mode = .controlled(.randomWalk)
        configuration.maxFailingPrograms = 1
        configuration.shrinkTimeBudget = .seconds(20)
        return configuration
    }

    /// `program` with every foreign mark removed: each task handed the backend as it is.
    static func unmarked(_ program: Program) throws -> Program {
        try Program(parsing: program.description.replacingOccurrences(of: "foreign ", with: ""))
    }

    /// The first failing program's failure, which must name `rule`; its shrunk program must keep
    /// a foreign task, and pass with the marks removed.
    static func expectCaught(_ makeBackend: @escaping @Sendable () -> any TaskBackend, under rule: Rule) async throws {
        let report = await Conformance.check(makeBackend: makeBackend, configuration: configuration(baseSeed: 20_261_128))
        let failure = try #require(report.failures.first, "\(report.backend): no program failed in \(report.programsRun)")
        #expect(failure.rules.contains(rule), "\(failure)")
        let shrunk = failure.shrunkProgram ?? failure.program
        #expect(shrunk.description.contains("foreign "), "the counterexample has no foreign task:\n\(shrunk)")
        // Without its foreign marks the same program passes: what the backend mishandles is the class.
        let mode = failure.shrunkMode ?? failure.mode
        let plain = await Conformance.runProgram(makeBackend(), program: try unmarked(shrunk), mode: mode, attempts: 3)
        #expect(!plain.findings.contains { $0.rule == rule }, "\(plain.findings)")
    }

    @Test("C5.1: a whenAll that drops an input of another class is caught by programs alone")
    func droppedForeignInputIsCaughtByPrograms() async throws {
        try await Self.expectCaught({ ForeignBlindBackend(.dropsForeignInputs) }, under: .c5_1)
    }

    @Test(
        "C2.6, C5.2, C5.3: a form that takes a pending task of another class as cancelled is caught by programs alone",
        arguments: ForeignSnapshotBackend.Bug.allCases)
    func pendingForeignTaskTakenAsCancelledIsCaughtByPrograms(_ bug: ForeignSnapshotBackend.Bug) async throws {
        try await Self.expectCaught({ ForeignSnapshotBackend(bug) }, under: ForeignInputCheckTests.expectedFinding(of: bug).rule)
    }

    /// The form a step with a foreign mark hands the backend a foreign task through.
    static func foreignForm(_ text: String) -> String? {
        guard text.contains("foreign ") else { return nil }
        let forms = [
            "whenAll(voids: [", "whenAll([", "whenAllSettled([", "race([", "any([", "continueWithTask->", "flatMap->", "recoverTask->",
            "finallyTask->", "runTask("
        ]
        if let form = forms.first(where: text.contains) { return form }
        return text.contains(" = whenAll(") ? "whenAll(a, b, ...)" : nil
    }

    /// Every form that takes a foreign task is generated so (each program reads back: ProgramTextTests).
    @Test("programs mark combinator inputs of every form, and the returned task of every unwrapping form and runTask, foreign")
    func foreignMarksCoverEveryForm() {
        var seen: Set<String> = []
        for seed in UInt64(0)..<300 {
            for step in ProgramGenerator().program(seed: seed).steps {
                if let form = Self.foreignForm(step.operation.description) { seen.insert(form) }
            }
        }
        let all: Set<String> = [
            "whenAll(voids: [", "whenAll([", "whenAllSettled([", "race([", "any([", "whenAll(a, b, ...)", "continueWithTask->", "flatMap->",
            "recoverTask->", "finallyTask->", "runTask("
        ]
        #expect(seen == all, "never foreign: \(all.subtracting(seen)); unexpected: \(seen.subtracting(all))")
    }

    @Test("a foreign mark reads only where a task is handed the backend: not on a task a value form keeps")
    func foreignMarksReadOnlyWhereTheyMeanSomething() throws {
        let header = "program seed=0 drivers=1 serial=0 counting=0 steps=2\n   0 d0 t0 = succeeded(v)\n"
        let chain = try Program(parsing: header + "   1 d0 t1 = t0.flatMap->foreign t0(on: inline) { returns }")
        #expect(
            chain.steps[1].operation
                == .chain(
                    task: 1, kind: .flatMap(.existing(0)), antecedent: 0, executor: .inline, token: nil, body: .returns,
                    foreignReturned: true))
        let combine = try Program(parsing: header + "   1 d0 t1 = whenAll(voids: [t0.asVoid(), foreign t0.asVoid()])")
        #expect(combine.steps[1].operation == .combine(.init(task: 1, kind: .whenAll, inputs: [0, 0], form: .voids, foreign: [1])))
        let run = try Program(parsing: header + "   1 d0 t1 = runTask(on: inline) { () in returns } -> foreign succeeded")
        #expect(
            run.steps[1].operation
                == .run(
                    .init(
                        task: 1, executor: .inline, token: nil, body: .returns, noToken: true, returns: .succeeded, foreignReturned: true)))
        for text in [
            "t1 = run(on: inline) { returns } => foreign t0", "t1 = t0.map=>foreign t0(on: inline) { returns }",
            "t1 = whenAll([foreign, t0])", "t1 = foreign whenAll([t0])"
        ] {
            #expect(throws: ProgramParseError.self, "\(text)") { try Program(parsing: header + "   1 d0 " + text) }
        }
    }
}
