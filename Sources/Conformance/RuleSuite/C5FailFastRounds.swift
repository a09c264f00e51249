import Dispatch
import Synchronization
import TaskAPI

extension RuleSuite {
    /// C5.5 where a `whenAll` fails fast while an input's value is being collected: one input
    /// succeeds on the calling thread as another fails on a second thread, the two calls started
    /// at once (`RaceBarrier`, the skew swept round by round), round after round. Whichever report
    /// comes first, the finished join holds no value: the value reported as the join fails is
    /// dropped, never kept in a join that will not hand it out. A join that collects without a
    /// lock (a slot claimed, written, then marked) has a window where the failure closes a slot
    /// being written; the value written there must still be freed.
    enum C5FailFastRounds {
        /// Rounds of one run: about 60 sweeps of the skew's 65 steps. A join that keeps the value
        /// of a closed slot was seen in 0 to 12 of 2,000 rounds (a debug build, a loaded machine).
        static let rounds = 4_000

        /// The time the rounds may take: past it, the run stops after the round in progress,
        /// once `minimumRounds` have run. Under the thread sanitizer on a loaded 2-core machine
        /// 4,000 rounds overran the suite's limit on one check (`RuleSuite.timeLimit`, 60 s), over
        /// 15 ms a round: a slow machine or build sweeps fewer rounds, and the report says how
        /// many ran.
        static let budget: Duration = .seconds(20)

        /// Rounds run whatever the time: four sweeps of the skew.
        static let minimumRounds = 4 * RaceBarrier.skewSteps

        /// Whether the round after `done` rounds, `elapsed` since the first, runs.
        static func runsAnother(after done: Int, elapsed: Duration) -> Bool {
            done < rounds && (done < minimumRounds || elapsed < budget)
        }

        /// Every value of the rounds run (`runsAnother`) is freed once the joins and inputs are dropped.
        static func valuesDropped(_ c: RuleContext) {
            let backend = c.backend
            let live = LiveValues()
            let partner = RacePartner()
            defer { partner.stop() }
            // Kept until every round ran, then waited for at once: a backend that delivers later
            // (an event loop) pays its latency once, not per round.
            var joins: [any AsyncTask<[LiveValues.Value]>] = []
            let start = ContinuousClock.now
            var round = 0
            while runsAnother(after: round, elapsed: .now - start) {
                defer { round += 1 }
                let skew = RaceBarrier.skew(round: round)
                let barrier = RaceBarrier()
                let partnerDone = DispatchSemaphore(value: 0)
                let first = backend.makeSource(of: LiveValues.Value.self)
                let failing = backend.makeSource(of: LiveValues.Value.self)
                let all = backend.whenAll([first.task, failing.task])
                let value = live.make()
                partner.run {
                    barrier.meet(delay: Swift.max(0, -skew))
                    failing.tryFail(TestError(code: 1))
                    partnerDone.signal()
                }
                barrier.meet(delay: Swift.max(0, skew))
                first.trySucceed(value)
                partnerDone.wait()
                joins.append(all)
            }
            // One 2 s deadline for all of them, so that joins that never complete cost 2 s, not 2 s each.
            let deadline = ContinuousClock.now + .seconds(2)
            let unsettled = joins.filter { $0.wait(timeout: Swift.max(.zero, deadline - .now)) == nil }.count
            joins = []
            let call =
                "backend.whenAll([first, failing]); first.trySucceed(value) and, on another thread at once, "
                + "failing.tryFail(error); \(round) rounds (of up to \(rounds), within \(budget)), each dropped"
            c.expectEqual(unsettled, 0, "every join completes (it fails fast)", call: call)
            c.expect(
                eventually { live.count == 0 }, "a whenAll that failed while a value was reported drops that value",
                call: call, expected: "every value freed", observed: "\(live.count) of \(round) values still alive")
        }
    }
}

/// The values of `C5FailFastRounds`: each counts itself alive until freed.
final class LiveValues: Sendable {
    private let alive = Atomic<Int>(0)

    /// How many values made here are not freed yet.
    var count: Int { alive.load(ordering: .acquiring) }

    /// A new value, counted until freed.
    func make() -> Value {
        alive.add(1, ordering: .relaxed)
        return Value(counter: self)
    }

    /// A value a task succeeds with: its deinit counts it out.
    final class Value: Sendable {
        private let counter: LiveValues

        init(counter: LiveValues) { self.counter = counter }

        deinit { counter.alive.subtract(1, ordering: .releasing) }
    }
}
