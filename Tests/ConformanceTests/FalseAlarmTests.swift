import Conformance
import TaskAPI
import Testing

/// The three false alarms a SwiftNIO adapter raised (issue 22), each in its situation: a small
/// outside backend (`LoopBackend`) that delivers from an event loop, later, as NIO does. Each
/// check must judge what the backend did once it did it, and still catch the real fault.
@Suite struct FalseAlarmTests {
    /// The rule suite's C2.4 hand-off check read the order before the loop had delivered (empty),
    /// while the deliveries came, in order, 200 ms later. It must wait for them (within the
    /// timing slack) and judge their order then.
    @Test("C2.4: the deferred hand-off check judges the order once the deliveries came")
    func c2_4HandOffCheckWaitsForTheDeliveries() async throws {
        let check = try #require(RuleSuite.checks.first { $0.rule == .c2_4 && $0.name.contains("trampoline") })
        let failures = await RuleSuite.run(check, on: LoopBackend(latency: .milliseconds(5)))
        #expect(failures.isEmpty, "\(failures.map(\.description))")
    }

    /// A probed `race` whose winner is wrong (input 0 instead of the first to complete) is C5.3;
    /// the value of input 0, which the race returns, is not a leak: C5.5 watches what the
    /// observed outcome does not return, not what the expected one would not.
    @Test("C5.5: a race with a wrong winner is C5.3 alone, not also a C5.5 leak")
    func c5_5JudgesAgainstTheObservedWinner() {
        let program = Program(
            seed: 1, drivers: 1, serialExecutors: 0, countingExecutors: 0,
            steps: [
                Step(driver: 0, operation: .combineProbed(kind: .race, inputs: 6, failing: []), pause: .none)
            ])
        let backend = LoopBackend(latency: .milliseconds(1), raceTakesFirstInput: true)
        let run = Conformance.runProgram(backend, program: program, mode: .stress)
        #expect(run.findings.map(\.rule) == [.c5_3], "\(run.findings)")
    }

    /// The dropped-chain resource check judged at the drop, while the loop freed the chain once
    /// it had run it (C8.3's abandoned completion through every link). C8.2's decision: freed
    /// within 2 s of the work the drop set off finishing. A backend that keeps the chain for
    /// good is still caught, naming the work's end.
    @Test("C8.2: a dropped chain freed once the work its drop set off is over is no leak; one kept is")
    func c8_2DroppedChainIsJudgedAfterItsWork() {
        let freed = Conformance.checkResources(LoopBackend(latency: .milliseconds(1)), links: 300, checks: [.droppedPendingChain])
        #expect(freed.isEmpty, "\(freed)")
        let kept = Conformance.checkResources(
            LoopBackend(latency: .zero, keepsTasks: true), links: 300, checks: [.droppedPendingChain], freeLimit: .milliseconds(200))
        #expect(kept.map(\.rule) == [.c8_2])
        #expect(kept.first?.message.contains("of the chain's completion") == true, "\(kept)")
    }

    /// Issue 28's class checks judge what a backend did once it did it, so a backend that
    /// delivers from an event loop, later, passes them, and so does the guide's kit example:
    /// the deadlines, the start once handlers began, the freed objects, the backoff range and
    /// the exact group counts. (Both timers used to cancel a `DispatchWorkItem`, which keeps its
    /// job until the deadline: the freed-objects check found it.)
    @Test("issue 28's class checks raise no false alarm on an event-loop backend or the guide's kit example", arguments: ["loop", "queues"])
    func classChecksPassOnAnEventLoop(_ name: String) async {
        let names = [
            "every cancel(after:) deadline stands", "once cancel() began running the token's handlers",
            "every other object the contract makes is freed", "backoff delays over the whole range", "pendingCount is exact"
        ]
        let checks = RuleSuite.checks.filter { check in names.contains { check.name.contains($0) } }
        #expect(checks.count == names.count)
        let backend: any TaskBackend = name == "loop" ? LoopBackend(latency: .milliseconds(1)) : QueueBackend()
        let report = await RuleSuite.run(backend, checks: checks)
        #expect(report.failures.isEmpty, "\(report.failures.map(\.description))")
    }
}
