import Foundation
import TaskAPI

extension RuleSuite {
    /// C6.4's decision at a backend's configured bound (issue 28, backend configurations at
    /// their limits): with more bodies blocked in `wait()` than the backend may serve, exactly
    /// `width` (the threads it runs bodies on when none is blocked: its workers, drainers or pool
    /// threads) plus `maxBlockedThreads` of them start, no fewer (C6.4 needs those threads) and,
    /// within 200 ms more, no more (the bound); then all complete once unblocked. Twice on one
    /// backend, the second round after the first one's surplus threads went, so a thread counted
    /// out wrongly shows.
    ///
    /// Not in `RuleSuite.checks`: it needs the backend built at the bound it is told. Run it on
    /// each configuration at its limits, as this package does for its backends:
    ///
    ///     let bound = RuleSuite.blockedThreadsBound(width: 1, maxBlockedThreads: 16)
    ///     let failures = await RuleSuite.run(bound, on: try ThreadsBackend(workers: 1, maxBlockedThreads: 16))
    ///
    /// Meant for a process of its own or a serialized test: bodies of other tests blocked on the
    /// same backend would blur the count.
    public static func blockedThreadsBound(width: Int, maxBlockedThreads: Int) -> RuleCheck {
        RuleCheck(
            .c6_4,
            "at maxBlockedThreads \(maxBlockedThreads), exactly the width (\(width)) plus the bound of bodies blocked in wait() run at once"
        ) { c in
            for round in 0..<2 {
                try C6BlockedThreadsBound.round(c, expected: width + maxBlockedThreads, round: round)
            }
        }
    }

    enum C6BlockedThreadsBound {
        /// One round: `expected + 8` bodies blocked on one gate; exactly `expected` start.
        static func round(_ c: RuleContext, expected: Int, round: Int) throws {
            let backend = c.backend
            let gate = backend.makeSource(of: Int.self)
            let started = Counter()
            let count = expected + 8
            let bodies = (0..<count).map { index in
                backend.run { _ in
                    started.increment()
                    return try gate.task.get() + index
                }
            }
            let deadline = Uptime.now + patience * 3
            while started.count < expected && Uptime.now < deadline { usleep(1_000) }
            let reached = started.count
            // A bound exceeded starts one more: give it 200 ms to do so wrongly.
            usleep(200_000)
            let after = started.count
            gate.trySucceed(1)
            let call = "\(count) × backend.run { try gate.get() } (round \(round + 1) of 2 on one backend), the gate held"
            c.expectEqual(reached, expected, "every body the bound allows starts (C6.4 needs those threads)", call: call)
            c.expectEqual(after, expected, "no body beyond the width plus the bound starts while they are blocked", call: call)
            let all = backend.whenAll(bodies).wait(timeout: patience * 6)
            try c.require(
                all?.value == (0..<count).map { $0 + 1 }, "every body completes once unblocked", call: call + ", then the gate opened",
                expected: "success(\(count) values)", observed: RuleContext.show(all.map { $0.kind }))
        }
    }
}
