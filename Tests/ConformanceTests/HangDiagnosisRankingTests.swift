import Testing

@testable import Conformance

/// The hang diagnosis's order (`HangFindingKind`): what the run observed directly comes before
/// what the diagnosis inferred, whatever the step order, so a hang's first finding (its rule, the
/// cause a user reads) is the direct one; the others stay in the finding's `alsoFound`. Each
/// situation is built as the facts a run gathers when it gives up (`Hang`), without a run.
@Suite struct HangDiagnosisRankingTests {
    /// The facts of a hang of `program`: the steps in `ended` ended, those in `stuckSteps` started
    /// and did not; `completed` tasks completed (and were seen to), the other made ones did not.
    static func hang(
        of program: Program, ended: [Int], stuckSteps: [Int], completed: Set<Int>, made: Set<Int>,
        extra: [EventKind] = []
    ) -> Hang {
        let kinds = ended.flatMap { [EventKind.stepStart(step: $0), .stepEnd(step: $0)] } + stuckSteps.map { .stepStart(step: $0) } + extra
        let events = kinds.enumerated().map { index, kind in
            Event(seq: UInt64(index), thread: 1, driver: 1, uptime: UInt64(index), kind: kind, underControl: false)
        }
        let tasks = 0..<program.taskCount
        return Hang(
            kind: .timedOut(phase: "the drivers' steps"), stuckSteps: stuckSteps, heldCompleted: false, limit: .seconds(5),
            observed: tasks.map(completed.contains), actual: tasks.map { made.contains($0) ? completed.contains($0) : nil },
            made: made, events: events)
    }

    static func step(_ driver: Int, _ operation: ProgramOperation) -> Step { Step(driver: driver, operation: operation, pause: .none) }

    /// C6.3 before C2.1: d0 waits (step 4) on t0, whose setter returned without completing it
    /// (inferred: t0 never completed); d1, in a later step, waits on t1, which completed (direct:
    /// a waiter not woken). Ranked in step order, as the diagnosis did before, C2.1 came first.
    @Test func aWaiterNotWokenComesBeforeATaskInferredStuckInAnEarlierStep() {
        let program = Program(
            seed: 1, drivers: 2, serialExecutors: 0, countingExecutors: 0,
            steps: [
                Self.step(0, .makeSource(task: 0, held: nil)),
                Self.step(1, .makeSource(task: 1, held: nil)),
                Self.step(1, .complete(source: 1, outcome: .success, throwing: false)),
                Self.step(1, .complete(source: 0, outcome: .success, throwing: false)),
                Self.step(0, .wait(task: 0)),
                Self.step(1, .wait(task: 1))
            ])
        let hang = Self.hang(of: program, ended: [0, 1, 2, 3], stuckSteps: [4, 5], completed: [1], made: [0, 1])
        let finding = HangDiagnosis.finding(for: hang, of: program)
        #expect(finding.rule == .c6_3, "\(finding.observed)")
        #expect(finding.observed.hasPrefix("likely culprit: driver d1 in step 5 (t1.wait()): t1 completed but wait() never woke"))
        // The inferred finding is still told, after it, with its rule.
        #expect(finding.alsoFound.map(\.rule) == [.c2_1], "\(finding.alsoFound)")
        #expect(finding.alsoFound.first?.message.hasPrefix("t0 never completed") == true)
        #expect(finding.observed.contains("also: C2.1: t0 never completed"))
        #expect(finding.rules == [.c6_3, .c2_1])
    }

    /// Every direct kind ranks before every inferred one, and the ranks are distinct: one order.
    @Test func directKindsRankBeforeInferredOnes() {
        let kinds = HangFindingKind.allCases
        #expect(Set(kinds.map(\.rank)).count == kinds.count)
        let lastDirect = kinds.filter(\.isDirect).map(\.rank).max() ?? 0
        let firstInferred = kinds.filter { !$0.isDirect }.map(\.rank).min() ?? .max
        #expect(lastDirect < firstInferred)
    }

    /// C5.4 before C2.1: a delay whose token's only cancel is a `cancel(after:)` that never fired
    /// (so nothing cancelled it) is an overdue timer; it was left to the generic hang (C2.1),
    /// which now names it as its explanation.
    @Test func aDelayWhoseTokenNothingCancelledIsAnOverdueTimer() {
        let program = Program(
            seed: 2, drivers: 1, serialExecutors: 0, countingExecutors: 0,
            steps: [
                Self.step(0, .makeToken(token: 0, linkedTo: nil)),
                Self.step(0, .delay(task: 0, microseconds: 742, token: 0)),
                Self.step(0, .cancelAfter(token: 0, microseconds: 888))
            ])
        var hang = Self.hang(of: program, ended: [0, 1, 2], stuckSteps: [], completed: [], made: [0])
        var finding = HangDiagnosis.finding(for: hang, of: program)
        #expect(finding.rule == .c5_4, "\(finding.observed)")
        #expect(finding.observed.contains("its timer, due 742us after it was set, never fired, and nothing cancelled its token"))
        #expect(finding.alsoFound.map(\.rule) == [.c2_1], "\(finding.alsoFound)")
        #expect(finding.alsoFound.first?.message.contains("explained by the C5.4 finding") == true, "\(finding.alsoFound)")
        // Once the cancel(after:) fired, the token may have cancelled the delay: not a timer's fault.
        hang = Self.hang(of: program, ended: [0, 1, 2], stuckSteps: [], completed: [], made: [0], extra: [.timerFired(step: 2)])
        finding = HangDiagnosis.finding(for: hang, of: program)
        #expect(finding.rule == .c2_1, "\(finding.observed)")
    }

    /// C5.4 before C2.1: a retry whose every attempt throws (no `failures`, a body that throws),
    /// whose `while` lets a second attempt come, waits for its backoff's timer; still pending, the
    /// timer never fired (timerNeverFires at base seed 1076904500987932130 was told as C2.1, "t6
    /// never completed"). With `while` stopping after the first attempt, or its own token
    /// cancelled on retry (`cancelsOnRetry`), no timer is awaited, and the hang is not a timer's.
    @Test func aRetryWhoseBodyThrowsAwaitsItsBackoffsTimer() {
        func finding(whileBelow: Int?, cancelsOnRetry: Bool = false) -> Finding {
            let retry = ProgramOperation.Retry(
                task: 0, attempts: 3, failures: 0, body: .throwsError, executor: .default, token: nil, whileBelow: whileBelow,
                backoffMicroseconds: 402, backoffGrowth: 15, taskForm: true, cancelsOnRetry: cancelsOnRetry)
            let program = Program(seed: 4, drivers: 1, serialExecutors: 0, countingExecutors: 0, steps: [Self.step(0, .retry(retry))])
            return HangDiagnosis.finding(for: Self.hang(of: program, ended: [0], stuckSteps: [], completed: [], made: [0]), of: program)
        }
        let overdue = finding(whileBelow: 2)
        #expect(overdue.rule == .c5_4, "\(overdue.observed)")
        #expect(overdue.observed.contains("its timer, due 402us after it was set, never fired"), "\(overdue.observed)")
        for other in [finding(whileBelow: 1), finding(whileBelow: 2, cancelsOnRetry: true)] {
            #expect(other.rule != .c5_4, "\(other.observed)")
            #expect(!other.observed.contains("never fired"), "\(other.observed)")
        }
    }

    /// A source whose release step a stuck driver has not reached yet is waited for, not stuck:
    /// d0's wait on t0 (step 2) waits for d1's release (step 4), and d1's wait not woken (step
    /// 3, C6.3) is the culprit; the release was not counted as t0's completing step, so t0 was
    /// called stuck (C2.1) and came first (lostWakeupInWait at base seed 15961645532137472875).
    @Test func aReleaseNotReachedYetIsWaitedFor() {
        let program = Program(
            seed: 3, drivers: 2, serialExecutors: 0, countingExecutors: 0,
            steps: [
                Self.step(0, .makeSource(task: 0, held: nil)),
                Self.step(1, .makeSource(task: 1, held: nil)),
                Self.step(0, .wait(task: 0)),
                Self.step(1, .wait(task: 1)),
                Self.step(1, .releaseSource(source: 0))
            ])
        let hang = Self.hang(of: program, ended: [0, 1], stuckSteps: [2, 3], completed: [1], made: [0, 1])
        let finding = HangDiagnosis.finding(for: hang, of: program)
        #expect(finding.rule == .c6_3, "\(finding.observed)")
        #expect(finding.alsoFound.isEmpty, "\(finding.alsoFound)")
        #expect(finding.observed.contains("driver d0 in step 2 (t0.wait()) waits for step 4 (driver d1)"), "\(finding.observed)")
    }
}
