import Conformance
import Foundation
import TaskAPI
import Testing

/// Generated programs hand the backend tasks of a class it does not know (contract 1.4: C2.6,
/// C5.1-C5.3): combinator inputs and the tasks continuations' and `runTask`'s bodies return for
/// the form to unwrap, marked `foreign` in a step's text and wrapped in a `ForeignTask` when it
/// runs, drawn from a stream of the seed's own (`ForeignStream`). The outside backends that
/// mishandle such tasks, which the rule suite's foreign-input checks catch
/// (`ForeignInputCheckTests`), are caught by programs alone too, under the same rules; the shrunk
/// counterexample keeps its foreign task, and the same program with every mark removed passes.
/// The package's backends pass the programs (`BackendConformanceTests`, `ControlledReplayTests`).
///
/// The buggy backends run in an exit test's child process each, one at a time: they are GCD
/// backends underneath (`GCDForwarding`), and their programs, in this process beside
/// ControlledReplayTests' seated runs of the gcd backend, made those runs not replay (a GCD
/// drainer's hand-off that did not arrive within 2 s, event logs that differ) in 3 of 3 runs of
/// the two suites side by side; in child processes, in 1 of 3. That suite is sensitive to any
/// load: beside ForeignInputCheckTests and ShrinkerTests instead of these, in 2 of 3 (and alone,
/// in none of 3).
@Suite(.serialized) struct ForeignProgramTests {
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

    /// The buggy outside backends, by name (what an exit test's child is given).
    static func backend(named name: String) -> any TaskBackend {
        let blind = ForeignBlindBackend(.dropsForeignInputs)
        let bug = ForeignSnapshotBackend.Bug.allCases.first { ForeignSnapshotBackend($0).name == name }
        return bug.map { ForeignSnapshotBackend($0) } ?? blind
    }

    /// Whether programs on backend `name` catch its bug: the first failing program's failure names
    /// `rule`, its shrunk program keeps a foreign task, and that program with the marks removed
    /// passes; and what was seen.
    static func programsCatch(_ name: String, under rule: Rule) async -> (caught: Bool, account: String) {
        let make: @Sendable () -> any TaskBackend = { backend(named: name) }
        let report = await Conformance.check(makeBackend: make, configuration: configuration(baseSeed: 20_261_128))
        guard let failure = report.failures.first else { return (false, "\(name): no program failed in \(report.programsRun)") }
        let shrunk = failure.shrunkProgram ?? failure.program
        guard let plain = try? unmarked(shrunk) else { return (false, "\(name): the unmarked text does not read:\n\(shrunk)") }
        // Without its foreign marks the same program passes: what the backend mishandles is the class.
        let run = await Conformance.runProgram(make(), program: plain, mode: failure.shrunkMode ?? failure.mode, attempts: 3)
        let unmarkedFails = run.findings.contains { $0.rule == rule }
        let caught = failure.rules.contains(rule) && shrunk.description.contains("foreign ") && !unmarkedFails
        return (caught, "\(failure)\nunmarked, it \(unmarkedFails ? "still fails \(rule)" : "passes")\n")
    }

    /// Runs `programsCatch` in a child process, which writes its verdict (`caught` or `missed`)
    /// and its account to standard error: the account is the issue when missed.
    static func expectCaught(_ name: String, under rule: Rule) async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            [name = name as String, rule = rule.rawValue as String] in
            let (caught, account) = await ForeignProgramTests.programsCatch(name, under: Rule(rawValue: rule) ?? .c2_6)
            FileHandle.standardError.write(Data(((caught ? "caught\n" : "missed\n") + account).utf8))
        }
        let text = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? "the child process crashed"
        #expect(text.hasPrefix("caught\n"), "programs did not catch \(name) under \(rule): \(text)")
    }

    @Test("C5.1: a whenAll that drops an input of another class is caught by programs alone")
    func droppedForeignInputIsCaughtByPrograms() async {
        await Self.expectCaught(ForeignBlindBackend(.dropsForeignInputs).name, under: .c5_1)
    }

    @Test(
        "C2.6, C5.2, C5.3: a form that takes a pending task of another class as cancelled is caught by programs alone",
        arguments: ForeignSnapshotBackend.Bug.allCases)
    func pendingForeignTaskTakenAsCancelledIsCaughtByPrograms(_ bug: ForeignSnapshotBackend.Bug) async {
        await Self.expectCaught(ForeignSnapshotBackend(bug).name, under: ForeignInputCheckTests.expectedFinding(of: bug).rule)
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
