@_spi(Testing) import BackendGCD
import Foundation
import TaskAPI
import Testing

@testable import Conformance

/// The bounded-exhaustive strategy (issue 22, point 4): every schedule of a small program with
/// at most two preemptions, depth first, so that a bug needing two specific preemptions is found
/// every time, in the same number of schedules, and its schedule replays exactly.
@Suite struct ExhaustiveTests {
    /// d0 makes a source, d1 completes it, d2 registers a continuation on it (C2.1): the
    /// `registrationMissesDeliveryEnd` mutant loses that continuation only when d1 is stopped
    /// between winning and delivering (one preemption: d1 could go on) and d2 between its two
    /// critical sections (a second).
    static let program = Program(
        seed: 1, drivers: 3, serialExecutors: 0, countingExecutors: 0,
        steps: [
            Step(driver: 0, operation: .makeSource(task: 0, held: nil), pause: .none),
            Step(driver: 1, operation: .complete(source: 0, outcome: .success, throwing: false), pause: .none),
            Step(
                driver: 2, operation: .chain(task: 1, kind: .map, antecedent: 0, executor: .default, token: nil, body: .returns),
                pause: .none)
        ])

    static let mutant: @Sendable () -> any TaskBackend = { ReferenceBackend(.registrationMissesDeliveryEnd) }

    static func configuration() -> ConformanceConfiguration {
        var configuration = ConformanceConfiguration(hangLimit: .seconds(5), output: { _ in })
        configuration.resourceLinks = 0
        // The whole bounded space is a few dozen schedules, a second or two alone; under the
        // thread sanitizer beside the other suites 26 of gcd's 36 took the default 10 s and the
        // exploration stopped unfinished. The limit is a guard against a hang here, not a budget.
        configuration.explorationTimeLimit = .seconds(120)
        return configuration
    }

    /// C2.1: found with a bound of 2, every time, after the same schedules; a bound of 1
    /// explores its whole space and does not find it (the bug needs both preemptions).
    @Test func aBugNeedingTwoPreemptionsIsFoundEveryTime() async throws {
        let first = await Conformance.explore(makeBackend: Self.mutant, program: Self.program, configuration: Self.configuration())
        let second = await Conformance.explore(makeBackend: Self.mutant, program: Self.program, configuration: Self.configuration())
        let finding = try #require(first.findings.first, "\(first)")
        #expect([Rule.c2_1, .c6_3].contains(finding.rule), "\(first)")
        #expect(!first.finished && first.stoppedBy == .failure)
        #expect(first.notReproducible.isEmpty, "\(first.notReproducible)")
        #expect(second.schedules == first.schedules && second.mode == first.mode && second.eventLines == first.eventLines)
        #expect(second.findings.map(\.rule) == first.findings.map(\.rule))
        guard case .controlled(.path(let path, preemptions: 2)) = first.mode else {
            Issue.record("the failing schedule is named by its path: \(first.mode)")
            return
        }
        let oneBound = await Conformance.explore(
            makeBackend: Self.mutant, program: Self.program, preemptions: 1,
            configuration: Self.configuration())
        #expect(oneBound.finished && oneBound.passed && oneBound.stoppedBy == nil, "\(oneBound)")
        print(
            "exhaustive: registrationMissesDeliveryEnd found by \(first.mode) (\(path.choices.count) forced choices) "
                + "at schedule \(first.schedules), \(finding.rule); a bound of 1 finishes in \(oneBound.schedules) schedules without it")
    }

    /// The correct backend: the whole bounded space, nothing found, the same count every time;
    /// on the interposed engine (the reference backend) and on seats (GCD, one drainer).
    @Test func theCorrectBackendsFinishWithNothingFound() async {
        let reference = await Conformance.explore(
            makeBackend: { ReferenceBackend() }, program: Self.program,
            configuration: Self.configuration())
        #expect(reference.finished && reference.passed && reference.stoppedBy == nil, "\(reference)")
        let gcd: @Sendable () -> any TaskBackend = { GCDBackend(drainers: 1) }
        let seated = await Conformance.explore(makeBackend: gcd, program: Self.program, configuration: Self.configuration())
        let again = await Conformance.explore(makeBackend: gcd, program: Self.program, configuration: Self.configuration())
        #expect(seated.finished && seated.passed, "\(seated)")
        #expect(seated.schedules > reference.schedules && again.schedules == seated.schedules)
        print("exhaustive: \(reference.schedules) schedules on the reference backend, \(seated.schedules) on gcd's seats (bound 2)")
    }

    /// The failing schedule, run again in its mode (what its replay line does), twice: the same
    /// finding, no work from outside control, the same event log as in the exploration.
    @Test func theFailingScheduleReplaysExactly() async throws {
        let explored = await Conformance.explore(makeBackend: Self.mutant, program: Self.program, configuration: Self.configuration())
        let rule = try #require(explored.findings.first?.rule)
        for _ in 0..<2 {
            let run = await Conformance.runProgram(
                Self.mutant(), program: Self.program, mode: explored.mode,
                configuration: Self.configuration())
            #expect(run.findings.first?.rule == rule, "\(run.findings)")
            #expect(run.notReproducible.isEmpty, "\(run.notReproducible)")
            #expect(run.eventLines == explored.eventLines)
        }
    }

    /// The replay line of a failure found by a check in exhaustive mode names its path, and the
    /// environment it sets (the mode, the program) runs that one schedule: the same finding.
    @Test func aCheckNamesTheFailingPathAndItsReplayLineRunsIt() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("exhaustive-\(UInt64.random(in: 0 ... .max)).txt").path
        try Self.program.description.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        var configuration = ConformanceConfiguration.fromEnvironment(environment: [
            "CONFORMANCE_MODE": "controlled-exhaustive", "CONFORMANCE_PROGRAM_FILE": file, "CONFORMANCE_SHRINK": "0"
        ])
        configuration.output = { _ in }
        let report = await Conformance.check(makeBackend: Self.mutant, configuration: configuration)
        let failure = try #require(report.failures.first, "\(report)")
        #expect(report.exploration?.stopped[.failure] == 1, "\(report)")
        #expect(report.description.contains("exhaustive schedules (at most 2 preemptions): 1 program, "), "\(report)")
        guard case .controlled(.path) = failure.mode else { Issue.record("\(failure.mode)"); return }
        #expect(failure.replay.contains("CONFORMANCE_MODE=\(failure.mode) "), "\(failure.replay)")
        var replay = ConformanceConfiguration.fromEnvironment(environment: [
            "CONFORMANCE_MODE": "\(failure.mode)", "CONFORMANCE_PROGRAM_FILE": file, "CONFORMANCE_SHRINK": "0"
        ])
        replay.output = { _ in }
        #expect(replay.environmentErrors.isEmpty && replay.mode == failure.mode)
        let again = await Conformance.check(makeBackend: Self.mutant, configuration: replay)
        #expect(again.failures.first?.rule == failure.rule && again.failures.first?.mode == failure.mode, "\(again)")
        #expect(again.exploration == nil, "one schedule, not an exploration")
    }

    /// A path the run cannot follow (a decision it never reaches) is said, not silently run.
    @Test func aPathTheRunCannotFollowIsNotReproducible() async throws {
        let path = try #require(SchedulePath("p40:1"))
        let run = await Conformance.runProgram(
            ReferenceBackend(), program: Self.program, mode: .controlled(.path(path, preemptions: 2)),
            configuration: Self.configuration())
        #expect(run.notReproducible.contains { $0.contains("diverged from its schedule path") }, "\(run.notReproducible)")
    }

    /// A check in exhaustive mode generates small programs (two or three drivers) and reports
    /// its explorations: every program either explored completely or stopped, and why.
    @Test func aCheckInExhaustiveModeReportsItsExplorations() async throws {
        var configuration = Self.configuration()
        configuration.programs = 3
        configuration.mode = .controlled(.exhaustive(preemptions: 1))
        configuration.explorationScheduleLimit = 150
        for seed in UInt64(0)..<20 {
            let program = configuration.program(seed: seed, mode: configuration.mode)
            #expect((2...3).contains(program.drivers) && program.steps.count <= 12, "\(program)")
        }
        let report = await Conformance.check(makeBackend: { ReferenceBackend() }, configuration: configuration)
        let exploration = try #require(report.exploration)
        #expect(report.passed, "\(report)")
        #expect(exploration.programs == 3 && exploration.preemptions == 1)
        #expect(exploration.finished + exploration.stopped.values.reduce(0, +) == 3)
        #expect(exploration.schedules >= 3 && exploration.schedules <= 450)
        #expect(report.description.contains("exhaustive schedules (at most 1 preemptions): \(exploration.summary)"))
    }

    @Test func modesAndLimitsParse() {
        #expect(ScheduleMode("controlled-exhaustive") == .controlled(.exhaustive(preemptions: 2)))
        #expect(ScheduleMode("exhaustive3") == .controlled(.exhaustive(preemptions: 3)))
        #expect(ScheduleMode("controlled-exhaustive0") == .controlled(.exhaustive(preemptions: 0)))
        let path = SchedulePath(choices: [.init(decision: 2, candidate: 1), .init(decision: 4, candidate: 0)])
        #expect(ScheduleMode("controlled-exhaustive2@p2:1,4:0") == path.map { .controlled(.path($0, preemptions: 2)) })
        #expect(ScheduleMode("exhaustive2@p") == .controlled(.path(.defaults, preemptions: 2)))
        for mode in [ScheduleMode.controlled(.exhaustive(preemptions: 2)), .controlled(.path(path ?? .defaults, preemptions: 1))] {
            #expect(ScheduleMode(mode.description) == mode)
        }
        for bad in ["exhaustive2@3", "random@p1:0", "exhaustive@p4:1,2:0", "exhaustive-1", "exhaustive@p1", "exhaustive@q1:0"] {
            #expect(ScheduleMode(bad) == nil, "\(bad)")
        }
        let good = ConformanceConfiguration.fromEnvironment(environment: [
            "CONFORMANCE_EXPLORATION_SCHEDULES": "500", "CONFORMANCE_EXPLORATION_TIME": "2.5"
        ])
        #expect(good.environmentErrors.isEmpty && good.explorationScheduleLimit == 500 && good.explorationTimeLimit == .milliseconds(2_500))
        let bad = ConformanceConfiguration.fromEnvironment(environment: [
            "CONFORMANCE_EXPLORATION_SCHEDULES": "0", "CONFORMANCE_EXPLORATION_TIME": "soon"
        ])
        #expect(bad.environmentErrors.count == 2, "\(bad.environmentErrors)")
    }

    /// The depth-first search itself, on a model: two threads of three atomic steps each (a
    /// decision after every step, the one that just ran the default). It must run each
    /// interleaving with at most `bound` preemptions exactly once, and no other.
    @Test(arguments: [0, 1, 2, 3])
    func theSearchRunsEachBoundedScheduleOnce(bound: Int) {
        var seen: [[Int]] = []
        var path = SchedulePath.defaults
        while true {
            var state = StrategyState(strategy: .path(path, preemptions: bound), seed: 0, expectedPoints: 0)
            let order = Self.interleaving { keys, current in keys[state.pick(keys, current: current)] }
            seen.append(order)
            guard let (next, _) = ScheduleExplorer.next(after: state.decisions, bound: bound) else { break }
            path = next
        }
        let expected = Self.allInterleavings().filter { Self.preemptions(of: $0) <= bound }
        #expect(Set(seen).count == seen.count, "a schedule ran twice")
        #expect(Set(seen) == Set(expected), "bound \(bound): \(seen.count) run, \(expected.count) expected")
    }

    /// Runs two threads of three steps to the end, asking `pick` (keys, the one that just ran).
    private static func interleaving(_ pick: ([Int], Int?) -> Int) -> [Int] {
        var left = [3, 3]
        var order: [Int] = []
        while left.contains(where: { $0 > 0 }) {
            let keys = left.indices.filter { left[$0] > 0 }
            let next = keys.count == 1 ? keys[0] : pick(keys, order.last)
            left[next] -= 1
            order.append(next)
        }
        return order
    }

    private static func allInterleavings() -> [[Int]] {
        (0..<64).map { bits in (0..<6).map { (bits >> $0) & 1 } }.filter { $0.filter { $0 == 0 }.count == 3 }
    }

    /// Switches away from a thread that still had steps.
    private static func preemptions(of order: [Int]) -> Int {
        var left = [3, 3]
        var count = 0
        for (index, thread) in order.enumerated() {
            if index > 0, order[index - 1] != thread, left[order[index - 1]] > 0 { count += 1 }
            left[thread] -= 1
        }
        return count
    }
}
