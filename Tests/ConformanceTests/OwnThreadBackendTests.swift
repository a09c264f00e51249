import Conformance
import Foundation
import ScheduleKit
import TaskAPI
import Testing

/// What a backend whose callbacks run on threads of its own (`LoopBackend`: an event loop, as a
/// SwiftNIO adapter's) meets in a check's report and replays (issue 31, items 7 to 12).
///
/// Serialized: each test runs a check or programs on threads of its own; side by side they would
/// crowd the two cores that every other suite's timing checks share.
@Suite(.serialized) struct OwnThreadBackendTests {
    /// Two races of one program, each with a wrong winner (C5.3): the program is reported once
    /// for C5.3, with the other finding beside it, not twice with the same program.
    @Test("C5.3: a program that breaks one rule twice is reported once, with the count")
    func oneRuleTwiceInAProgramIsReportedOnce() async {
        let program = Program(
            seed: 1, drivers: 1, serialExecutors: 0, countingExecutors: 0,
            steps: [
                Step(driver: 0, operation: .combineProbed(kind: .race, inputs: 4, failing: []), pause: .none),
                Step(driver: 0, operation: .combineProbed(kind: .race, inputs: 4, failing: []), pause: .none)
            ])
        var configuration = Self.quiet()
        configuration.replayProgram = program
        configuration.mode = .stress
        let report = await Conformance.check(
            makeBackend: { LoopBackend(latency: .milliseconds(1), raceTakesFirstInput: true) }, configuration: configuration)
        let c5_3 = report.failures.filter { $0.rule == .c5_3 }
        #expect(c5_3.count == 1 && c5_3.first?.moreFindings.count == 1, "\(report)")
        #expect(report.description.contains("C5.3 broken 2 times in this program (reported once)"), "\(report)")
    }

    /// A replay that breaks another rule than its failure's does not reproduce it: it runs again,
    /// up to its attempts, and says "not reproducible" with what it broke instead; the one
    /// expecting the rule it breaks reproduces at once.
    @Test("C5.3: a replay reproduces only with the rule of its failure, and says plainly when it does not")
    func aReplayReproducesOnlyWithItsRule() async {
        var configuration = Self.quiet()
        configuration.replayProgram = Program(
            seed: 1, drivers: 1, serialExecutors: 0, countingExecutors: 0,
            steps: [Step(driver: 0, operation: .combineProbed(kind: .race, inputs: 4, failing: []), pause: .none)])
        configuration.mode = .stress
        configuration.replayAttempts = 3
        configuration.replayExpectedRules = [.c6_2]
        let made = Locked(0)
        let other = await Conformance.check(
            makeBackend: {
                made.withLock { $0 += 1 }
                return LoopBackend(latency: .milliseconds(1), raceTakesFirstInput: true)
            }, configuration: configuration)
        #expect(other.replayReproduced == false && made.withLock { $0 } == 1 + 3, "\(other)")
        #expect(
            other.replayNote?.hasPrefix(
                "not reproducible: 3 runs never broke C6.2 (what the replayed failure broke); the last broke C5.3 instead")
                == true, "\(other)")
        configuration.replayExpectedRules = [.c5_3]
        let same = await Conformance.check(
            makeBackend: { LoopBackend(latency: .milliseconds(1), raceTakesFirstInput: true) }, configuration: configuration)
        #expect(same.replayReproduced == true && same.replayNote == "reproduced C5.3 at run 1 of at most 3", "\(same)")
    }

    /// A controlled replay of a program that finds nothing on the loop backend (its deliveries
    /// come from the loop's thread, which controlled mode cannot schedule) runs again, and the
    /// report says it did not reproduce instead of a plain "passed".
    @Test("C5.3: a controlled replay that does not reproduce is retried and says not reproducible")
    func aControlledReplayThatDoesNotReproduceSaysSo() async {
        var configuration = Self.quiet()
        configuration.replayProgram = Program(
            seed: 1, drivers: 1, serialExecutors: 0, countingExecutors: 0,
            steps: [Step(driver: 0, operation: .combineProbed(kind: .race, inputs: 4, failing: []), pause: .none)])
        configuration.mode = .controlled(.randomWalk)
        configuration.replayAttempts = 3
        configuration.replayExpectedRules = [.c5_3]
        let runs = Locked(0)
        let report = await Conformance.check(
            makeBackend: {
                runs.withLock { $0 += 1 }
                return LoopBackend(latency: .milliseconds(1))
            }, configuration: configuration)
        #expect(runs.withLock { $0 } >= 1 + 3, "\(report)")
        #expect(
            report.passed && report.replayReproduced == false
                && report.description.contains("passed, but not reproducible")
                && report.replayNote?.hasPrefix("not reproducible: 3 runs never broke C5.3") == true, "\(report)")
    }

    /// A replay line carries what the test needs from any package: the test's own variables
    /// (`CONFORMANCE_REPLAY_ENV` names them), the run's settings that change the program, and
    /// the rule it must break.
    @Test("C5.3: a failure's replay lines carry the test's environment and the rule they must break")
    func replayLinesCarryTheirEnvironment() async throws {
        var configuration = ConformanceConfiguration.fromEnvironment(
            testFilter: "NIOConformanceTests.Suite/conforms()",
            environment: ["CONFORMANCE_REPLAY_ENV": "PROJECT", "PROJECT": "nio adapter", "CONFORMANCE_MAX_STEPS": "40"])
        #expect(configuration.replayEnvironment == ["PROJECT": "nio adapter"] && configuration.environmentErrors.isEmpty)
        let missing = ConformanceConfiguration.fromEnvironment(environment: ["CONFORMANCE_REPLAY_ENV": "PROJECT"])
        #expect(missing.environmentErrors.contains { $0.contains("CONFORMANCE_REPLAY_ENV names PROJECT, which is not set") })
        configuration.output = { _ in }
        configuration.replayProgram = Program(
            seed: 1, drivers: 1, serialExecutors: 0, countingExecutors: 0,
            steps: [Step(driver: 0, operation: .combineProbed(kind: .race, inputs: 4, failing: []), pause: .none)])
        configuration.mode = .stress
        configuration.shrinkTimeBudget = .seconds(2)
        configuration.programDirectory = FileManager.default.temporaryDirectory.path
        let report = await Conformance.check(
            makeBackend: { LoopBackend(latency: .milliseconds(1), raceTakesFirstInput: true) }, configuration: configuration)
        let failure = try #require(report.failures.first { $0.rule == .c5_3 }, "\(report)")
        for line in [failure.replay] + (failure.shrunkReplay.map { [$0] } ?? []) {
            #expect(line.hasPrefix("CONFORMANCE_MAX_STEPS=40 PROJECT='nio adapter' CONFORMANCE_MODE="), "\(line)")
            #expect(line.contains("CONFORMANCE_EXPECT=C5.3 "), "\(line)")
            #expect(line.hasSuffix("swift test --filter 'NIOConformanceTests.Suite/conforms()'"), "\(line)")
        }
        let replayed = ConformanceConfiguration.fromEnvironment(environment: ["CONFORMANCE_EXPECT": "C5.3,C6.2"])
        #expect(replayed.replayExpectedRules == [.c5_3, .c6_2])
        #expect(ConformanceConfiguration.fromEnvironment(environment: ["CONFORMANCE_EXPECT": "C5.9"]).environmentErrors.count == 1)
    }

    /// Mixed mode on a backend whose controlled programs all see work from its own threads:
    /// after the sample, the programs meant for controlled mode run in stress mode, and the
    /// report says so.
    @Test("C2.3: mixed mode spends the budget in stress mode when controlled mode cannot reach the backend")
    func mixedModeMovesTheBudgetToStress() async {
        var configuration = Self.quiet()
        configuration.baseSeed = 1
        configuration.programs = 32
        configuration.timeBudget = .seconds(600)
        configuration.maxFailingPrograms = 1_000
        configuration.shrinkTimeBudget = .seconds(1)
        let report = await Conformance.check(makeBackend: { LoopBackend(latency: .zero) }, configuration: configuration)
        #expect(report.programsRun == 32 && report.controlledPrograms == 8, "\(report)")
        #expect(report.notReproducible.count >= 7, "\(report)")
        #expect(
            report.budgetNote?.contains("from program 15 on, the programs meant for controlled mode ran in stress mode") == true,
            "\(report)")
        #expect(report.description.contains("  budget: controlled mode cannot reach this backend"), "\(report)")
        // Its controlled runs do not replay exactly: a stress failure's counterexample stays in
        // stress mode, where its replay line reproduces it.
        for failure in report.failures where failure.mode == .stress && failure.shrunkProgram != nil {
            #expect(failure.shrunkMode == .stress, "\(failure.rule) shrunk in \(failure.shrunkMode.map { "\($0)" } ?? "-")")
        }
    }

    /// A `wait(timeout:)` that returns an already completed task's outcome only after the timing
    /// slack slept through its wake-up: the rule suite's checks that wait report it as C6.2,
    /// although the outcome is what their own rule (C3.2 here) expects.
    @Test("C6.2: a rule-suite check whose timed wait slept through a completed task reports C6.2")
    func ruleSuiteTimedWaitThatSleepsThroughIsC6_2() async {
        let check = RuleCheck(.c3_2, "a task completed cancelled is cancelled") { c in
            c.expectOutcome(c.backend.cancelled(as: Int.self), .cancelled, "a cancelled task is cancelled", call: "backend.cancelled()")
        }
        let slow = LoopBackend(latency: .zero, timedWaitOversleeps: .milliseconds(300))
        let failures = await RuleSuite.run(check, on: slow, timingSlack: .milliseconds(100))
        #expect(failures.map(\.rule) == [.c6_2], "\(failures)")
        #expect(failures.first?.message.contains("slept through its wake-up") == true, "\(failures)")
        #expect(await RuleSuite.run(check, on: LoopBackend(latency: .zero), timingSlack: .milliseconds(100)).isEmpty)
    }

    /// A backend written for contract 1.1 meets a failing check of C9.10 (1.2) and one of C2.3
    /// (1.0): the report names C9.10 as newer than its target, and only it.
    @Test("C9.10: the report names the failing rules newer than the contract version the backend targets")
    func failingRulesNewerThanTheTargetAreNamed() async {
        let newer = RuleCheck(.c9_10, "a rule this backend was not written for") { c in
            c.fail("the backend predates C9.10", call: "backend.mainExecutor", expected: "C9.10 kept", observed: "not kept")
        }
        let older = RuleCheck(.c2_3, "a rule this backend was written for") { c in
            c.fail("the backend breaks C2.3", call: "whenComplete(on: backend.inlineExecutor)", expected: "at once", observed: "later")
        }
        var configuration = Self.quiet()
        configuration.programs = 0
        let report = await Conformance.checkAll(
            makeBackend: { LoopBackend(latency: .zero, targets: .v1_1) }, configuration: configuration, rules: [newer, older])
        #expect(report.targetContractVersion == .v1_1 && report.rulesNewerThanTarget == [.c9_10], "\(report)")
        #expect(
            report.description.contains(
                "contract: this backend targets contract 1.1, the contract is \(ContractVersion.current); failing rules that came or changed "
                    + "later: C9.10 (1.2). "),
            "\(report)")
        let undeclared = await Conformance.checkAll(
            makeBackend: { LoopBackend(latency: .zero) }, configuration: configuration, rules: [newer])
        #expect(undeclared.description.contains("this backend declares no contract version"), "\(undeclared)")
    }

    /// A backend written for contract 1.2 meets a failing check of C4.6, which 1.3 revised (every
    /// `cancel(after:)` deadline stands), and one of C2.3, unchanged since 1.0: the report names
    /// C4.6 as revised after its target, and only it.
    @Test("C4.6: the report names the failing rules a later contract version revised")
    func failingRulesRevisedAfterTheTargetAreNamed() async {
        let revised = RuleCheck(.c4_6, "a rule a later version asks more of") { c in
            c.fail(
                "a later cancel(after:) replaced an earlier one", call: "source.cancel(after:)", expected: "the earliest deadline",
                observed: "the last")
        }
        let unchanged = RuleCheck(.c2_3, "a rule unchanged since this backend was written") { c in
            c.fail("the backend breaks C2.3", call: "whenComplete(on: backend.inlineExecutor)", expected: "at once", observed: "later")
        }
        var configuration = Self.quiet()
        configuration.programs = 0
        let report = await Conformance.checkAll(
            makeBackend: { LoopBackend(latency: .zero, targets: .v1_2) }, configuration: configuration, rules: [revised, unchanged])
        #expect(Rule.c4_6.revisedIn == [.v1_3] && Rule.c4_6.lastChangedIn == .v1_3 && Rule.c2_3.lastChangedIn == .v1_0)
        #expect(report.rulesNewerThanTarget == [.c4_6], "\(report)")
        #expect(report.description.contains("failing rules that came or changed later: C4.6 (revised in 1.3). "), "\(report)")
    }

    /// docs/CONTRACT.md's table of versions lists, for each, exactly the rules `Rule.introducedIn`
    /// gives it, and the current version is the last.
    @Test("C9.11: every rule's contract versions are the ones docs/CONTRACT.md lists it under")
    func contractVersionsMatchTheContract() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/CONTRACT.md"), encoding: .utf8)
        #expect(text.contains("Contract version: \(ContractVersion.current)"))
        #expect(ContractVersion.all == ContractVersion.all.sorted() && ContractVersion.all.last == .current)
        for version in ContractVersion.all {
            let row = try #require(text.split(separator: "\n").first { $0.hasPrefix("| \(version) |") }, "no row for \(version)")
            let columns = row.split(separator: "|", omittingEmptySubsequences: false)
            func rules(inColumn index: Int) -> [String] {
                columns[index].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            }
            let introduced = Rule.allCases.filter { $0.introducedIn == version }.map(\.rawValue)
            #expect(
                rules(inColumn: 2) == introduced,
                "docs/CONTRACT.md's row for \(version): \(rules(inColumn: 2)), Rule.introducedIn: \(introduced)")
            let revised = Rule.allCases.filter { $0.revisedIn.contains(version) }.map(\.rawValue)
            #expect(
                rules(inColumn: 3) == revised,
                "docs/CONTRACT.md's row for \(version): revised \(rules(inColumn: 3)), Rule.revisedIn: \(revised)")
        }
    }

    /// A `wait()` that returned early with an error (the backend refuses to block) changes what
    /// runs after it; a finding of another rule in the program (a race's wrong winner, C5.3) says
    /// so instead of hiding it.
    @Test("C5.3: a finding says when a wait() of the program returned early with an error")
    func aFindingNamesAWaitThatReturnedEarly() async {
        let program = Program(
            seed: 1, drivers: 2, serialExecutors: 0, countingExecutors: 0,
            steps: [
                Step(driver: 0, operation: .makeSource(task: 0, held: nil), pause: .none),
                Step(driver: 1, operation: .wait(task: 0), pause: .none),
                Step(driver: 1, operation: .complete(source: 0, outcome: .success, throwing: false), pause: .none),
                Step(driver: 1, operation: .combineProbed(kind: .race, inputs: 4, failing: []), pause: .none)
            ])
        let backend = LoopBackend(latency: .milliseconds(1), raceTakesFirstInput: true, waitsRefuseWhilePending: true)
        let run = await Conformance.runProgram(backend, program: program, mode: .stress)
        let c5_3 = run.findings.first { $0.rule == .c5_3 }
        #expect(c5_3?.message.contains("note: the wait() of step 1 (t0.wait()) returned failure") == true, "\(run.findings)")
        #expect(run.findings.filter { $0.rule.rawValue.hasPrefix("C6.") }.allSatisfy { !$0.message.contains("note: the wait()") })
    }

    /// An await whose Swift task is cancelled, on a backend whose `value` ignores cancellation,
    /// returns only when the harness completes the source the program held: the finding says
    /// so, rather than "returned 2001 ms after" reading as a timing flake.
    @Test("C4.7: a late cancelled await that returned only once its task completed says so")
    func aCancelledAwaitThatReturnedOnlyAtCompletionSaysSo() async {
        let program = Program(
            seed: 1, drivers: 1, serialExecutors: 0, countingExecutors: 0,
            steps: [
                Step(driver: 0, operation: .makeSource(task: 0, held: .success), pause: .none),
                Step(driver: 0, operation: .await(task: 0, cancelled: true), pause: .none)
            ])
        var configuration = ConformanceConfiguration(output: { _ in })
        configuration.timingSlack = .milliseconds(300)
        let run = await Conformance.runProgram(
            LoopBackend(latency: .zero, awaitIgnoresCancellation: true), program: program, mode: .stress, configuration: configuration)
        let c4_7 = run.findings.first { $0.rule == .c4_7 }
        #expect(
            c4_7?.message.contains("it did not stop on the cancellation, it returned only once t0 completed") == true, "\(run.findings)")
        let honest = await Conformance.runProgram(
            LoopBackend(latency: .zero), program: program, mode: .stress, configuration: configuration)
        #expect(!honest.findings.contains { $0.rule == .c4_7 }, "\(honest.findings)")
    }

    static func quiet() -> ConformanceConfiguration {
        var configuration = ConformanceConfiguration(output: { _ in })
        configuration.shrinkTimeBudget = .zero
        configuration.resourceLinks = 0
        return configuration
    }
}
