import Testing

@testable import Conformance

/// How the nested-wait probe's event is judged (`ProgramOperation.NestedWait.judgeProbe`): a
/// timed-out wait on a nest that was done in time is the wait's fault (C6.2), not the nest's
/// (C6.4); a level done whose waiter never returned is a lost wake-up (C6.3). Built from the
/// event alone, without a run.
@Suite struct NestedWaitJudgementTests {
    static let slack = Duration.seconds(2)
    static let probe = ProgramOperation.NestedWait(depth: 8)

    /// The rules of the findings for a wait that returned `result` after the whole limit.
    static func rules(result: Outcome?, lostWakeupLevel: Int? = nil, nestDone: Duration?) -> [Rule] {
        let limit = ProgramOperation.NestedWait.limit(slack: slack)
        let event = EventKind.nestedWaitReturned(
            step: 3, elapsed: limit, result: result, lostWakeupLevel: lostWakeupLevel, nestDone: nestDone)
        return probe.judgeProbe(event, step: 3, slack: slack)?.findings.map(\.rule) ?? []
    }

    /// C6.2: the outermost body returned after 40 ms, yet `wait(timeout:)` slept to its deadline.
    @Test func aNestDoneInTimeThatTheTimedWaitMissedIsC6_2() {
        #expect(Self.rules(result: nil, nestDone: .milliseconds(40)) == [.c6_2])
    }

    /// C6.4: the nest was not done by the deadline, or done too close to it to blame the wait.
    @Test func aNestNotDoneInTimeIsC6_4() {
        #expect(Self.rules(result: nil, nestDone: nil) == [.c6_4])
        let late = ProgramOperation.NestedWait.limit(slack: Self.slack) - .milliseconds(500)
        #expect(Self.rules(result: nil, nestDone: late) == [.c6_4])
    }

    /// C6.3: a level done whose waiter never returned, with the nest not done.
    @Test func aLevelDoneWhoseWaiterNeverReturnedIsC6_3() {
        #expect(Self.rules(result: nil, lostWakeupLevel: 2, nestDone: nil) == [.c6_3])
    }

    /// A nest done with its depth, in time, is no finding (C6.4 exercised).
    @Test func aNestDoneWithItsDepthIsNoFinding() {
        #expect(Self.rules(result: .success(8), nestDone: .milliseconds(40)).isEmpty)
    }
}
