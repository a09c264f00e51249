import Foundation
import Synchronization
import TaskAPI

extension RuleSuite {
    /// C6.4's decision past its bound: more bodies blocked in `wait()` than a backend starts
    /// threads for (`maxBlockedThreads`, 512 by default) make queued work wait for a blocked body
    /// to return, not fail, run twice or hang once they return.
    enum C6BlockingBound {
        static let checks: [RuleCheck] = [
            RuleCheck(
                .c6_4, "past the bound on blocked threads, queued bodies wait and all run once the blocked ones return",
                beyondTheBound)
        ]

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
