import Foundation
import Synchronization
import TaskAPI

extension RuleSuite {
    /// C6.4's decision past a backend's default bound: more bodies blocked in `wait()` than it
    /// starts threads for (`maxBlockedThreads`, 512 by default) make queued work wait for a
    /// blocked body to return, not fail, run twice or hang once they return.
    ///
    /// Not in `RuleSuite.checks`: it holds 576 threads blocked for a while, and a process that
    /// runs other checks beside it (a test process runs suites side by side) sees their timers
    /// and schedules stall with it: a Dispatch timer of another test fired 3 s late beside it. Run
    /// it in a process or a serialized test of its own, as this package's measures do
    /// (`Tools/coverage.py`, `Tools/mutation`); `blockedThreadsBound(width:maxBlockedThreads:)`
    /// checks the same decision at a small bound:
    ///
    ///     let failures = await RuleSuite.run(RuleSuite.beyondTheDefaultBound, on: MyBackend())
    public static let beyondTheDefaultBound = RuleCheck(
        .c6_4, "past the bound on blocked threads, queued bodies wait and all run once the blocked ones return",
        C6BlockingBound.beyondTheBound)

    enum C6BlockingBound {

        /// More bodies than the default bound on blocked threads, plus one per processor a
        /// backend may keep besides.
        static let bodies = BlockingThreads.defaultLimit + 64

        static func beyondTheBound(_ c: RuleContext) throws {
            let backend = c.backend
            let gate = backend.makeSource(of: Void.self)
            let started = Counter()
            let tasks = (0..<bodies).map { index in
                backend.run { _ -> Int in
                    started.increment()
                    return gate.task.wait(timeout: patience) == nil ? -1 : index
                }
            }
            // How many run at once is the backend's bound, unknown here: open the gate once all
            // started or the count stood still for 100 ms (the bound holds the rest back). When
            // it opens does not change the verdict, only how far past the bound the check reaches
            // (C6.4's nested waits check that 16 blocked bodies leave room for more).
            var seen = -1
            while started.count < bodies, started.count != seen {
                seen = started.count
                Thread.sleep(forTimeInterval: 0.1)
            }
            let blocked = started.count
            gate.trySucceed(())
            let call =
                "\(bodies) × backend.run { gate.task.wait(timeout: 10 s) } (\(blocked) started before the gate opened), then the gate"
            let all = backend.whenAll(tasks)
            let expected = Array(0..<bodies)
            c.expectOutcome(all, .success(expected), "every body runs, once, and sees the gate open", call: call)
            c.expectEqual(started.count, bodies, "each body started exactly once", call: call)
        }
    }
}
