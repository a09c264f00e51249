import Conformance
import Foundation
import Testing

/// Issue 22's call shapes and strict checks, each shown to catch the bug it is for: a hand-written
/// program that makes the shape, run on the correct reference backend (no finding) and on the
/// mutant (the finding, under the rule the bug breaks). The mutants are also in `MutantTests`,
/// where generated programs must find them.
struct ShapeTests {
    /// Runs `steps` (driver 0 unless a step says otherwise) on the correct backend and on
    /// `mutation`'s, in `mode`; returns the rules the mutant's run broke.
    static func rules(
        _ steps: [ProgramOperation], serial: Int = 0, pause: Pause = .none, mutation: Mutation,
        mode: ScheduleMode = .controlled(.randomWalk)
    ) async -> [Rule] {
        let program = Program(
            seed: 1, drivers: 1, serialExecutors: serial, countingExecutors: 0,
            steps: steps.map { Step(driver: 0, operation: $0, pause: pause) })
        let correct = await Conformance.runProgram(ReferenceBackend(), program: program, mode: mode)
        #expect(correct.findings.isEmpty, "the correct backend: \(correct.findings)")
        let mutant = await Conformance.runProgram(ReferenceBackend(mutation), program: program, mode: mode)
        return mutant.findings.map(\.rule)
    }

    /// An async loop on the inline executor: each step registers the next on a completed task from
    /// inside the previous step's continuation. Run in place, the loop recurses (C2.7).
    @Test func anAsyncLoopRunInPlaceRecurses() async {
        let rules = await Self.rules([.asyncLoop(steps: 150, executor: .inline)], mutation: .registrationRunsInPlace)
        #expect(rules == [.c2_7])
    }

    /// The resource check's async loop on the inline executor (C2.7, at 1,000,000 steps on a 512
    /// KiB stack in `checkResources`): the correct reference finishes it; run in place, the loop
    /// overflows the stack, which the check reports before the process dies (status 70).
    @Test func theResourceChecksAsyncLoopOverflowsWhenRunInPlace() async {
        #expect(Conformance.checkResources(ReferenceBackend(), links: 200_000, checks: [.inlineLoop]).isEmpty)
        let result = await #expect(processExitsWith: .exitCode(Conformance.resourceCheckCrashStatus), observing: [\.standardErrorContent]) {
            _ = Conformance.checkResources(ReferenceBackend(.registrationRunsInPlace), links: 200_000, checks: [.inlineLoop])
        }
        let stderr = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(stderr.contains("C2.7 broken: stack overflow in the resource check an async loop on the inline executor"), "\(stderr)")
    }

    /// A continuation registered from inside inline work on a completed task is queued behind
    /// that work (C2.7's decision): run in place, it starts before the work ended.
    @Test func aRegistrationInsideInlineWorkIsQueued() async {
        let rules = await Self.rules(
            [
                .makeCompleted(task: 0, outcome: .success),
                .observe(task: 1, antecedent: 0, executor: .inline, host: .continuation(of: 0, on: .inline))
            ], mutation: .registrationRunsInPlace)
        #expect(rules.contains(.c2_7))
    }

    /// A source's inline continuations run in registration order, the harness's observer (the
    /// first) included (C2.4): `["second", "first"]` is found.
    @Test func inlineContinuationsRunInRegistrationOrder() async {
        let rules = await Self.rules(
            [
                .makeSource(task: 0, held: nil),
                .observe(task: 1, antecedent: 0, executor: .inline),
                .observe(task: 2, antecedent: 0, executor: .inline),
                .complete(source: 0, outcome: .success, throwing: false)
            ], mutation: .firstInlineHandedLast)
        #expect(rules.contains(.c2_4))
    }

    /// A source's task that nothing started is pending (C1.5), not running.
    @Test func aSourceNothingStartedIsPending() async {
        let rules = await Self.rules(
            [
                .makeSource(task: 0, held: nil),
                .inspect(task: 0),
                .complete(source: 0, outcome: .success, throwing: false)
            ], mutation: .statusRunningWhenPending)
        #expect(rules == [.c1_5])
    }

    /// A burst of jobs on a serial executor whose ring has moved its head: the ring grows while
    /// wrapped, and must keep FIFO order (C7.2). Stress mode hands the jobs straight over, so the
    /// ring fills only if the burst outpaces the executor's drain, which a loaded machine may not
    /// let it do in a given run: up to 20 runs, each on the correct backend too, which must never
    /// find anything.
    @Test func aBurstOnAWrappedRingKeepsItsOrder() async {
        var runs = 0
        var rules: [Rule] = []
        while runs < 20, !rules.contains(.c7_2) {
            runs += 1
            // The wait on a job queued behind the first burst returns once that burst ran, which
            // moved the ring's head.
            rules = await Self.rules(
                [
                    .burst(serial: 0, count: 10),
                    .run(task: 0, executor: .serial(0), token: nil, body: .returns),
                    .wait(task: 0),
                    .burst(serial: 0, count: 64)
                ], serial: 1, mutation: .serialRingReordersOnGrowth, mode: .stress)
        }
        #expect(rules.contains(.c7_2), "not found in \(runs) runs: \(rules)")
    }
}
