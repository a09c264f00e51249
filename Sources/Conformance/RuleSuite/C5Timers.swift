import Foundation
import TaskAPI

extension RuleSuite {
    /// C5.4 with many timers pending at once: delays cancelled in a crowd, delays made before it
    /// and short ones among it, and delays past any clock's range. A backend's timer store (a heap
    /// that compacts disposed entries, a queue of system timers) must keep every deadline it still
    /// holds.
    enum C5Timers {
        /// A delay longer than any clock counts in nanoseconds (2^40 s, about 35,000 years): its
        /// deadline cannot be represented, and it must neither fire nor trap.
        static let pastAnyClock: Duration = .seconds(Int64(1) << 40)

        static func manyTimers(_ c: RuleContext) throws {
            let backend = c.backend
            let crowd = backend.makeCancellationSource()
            let endless = backend.makeCancellationSource()
            let start = Uptime.now
            let before = (0..<4).map { _ in backend.delay(.milliseconds(200)) }
            var far: [any AsyncTask<Void>] = []
            var near: [(delay: Duration, task: any AsyncTask<Void>)] = []
            for index in 0..<96 {
                far.append(backend.delay(.seconds(30), token: crowd.token))
                if index % 32 == 0 {
                    let delay = Duration.milliseconds(20 + index / 4)
                    near.append((delay, backend.delay(delay)))
                }
            }
            let beyond = (0..<2).map { _ in backend.delay(pastAnyClock, token: endless.token) }
            crowd.cancel()
            let call =
                "4 × backend.delay(.milliseconds(200)), then 96 × backend.delay(.seconds(30), token: crowd), "
                + "3 backend.delay(20, 28, 36 ms) among them, crowd.cancel()"
            let settled = try c.requireOutcome(
                backend.whenAllSettled(far), "the cancelled delays complete", call: call)
            let cancelled = settled.value?.filter(\.isCancelled).count ?? 0
            c.expectEqual(cancelled, far.count, "every delay whose token was cancelled completes cancelled", call: call)
            for (delay, task) in near {
                c.expectOutcome(task, .success(()), "a delay among cancelled ones still succeeds", call: call)
                let elapsed = Uptime.now - start
                c.expect(
                    elapsed >= delay, "a delay among cancelled ones succeeds no earlier than asked", call: call,
                    expected: "after \(delay) or more", observed: "after \(elapsed)")
            }
            c.expectOutcome(
                backend.whenAll(voids: before), .success(()), "delays still pending among cancelled ones succeed", call: call)
            let elapsed = Uptime.now - start
            c.expect(
                elapsed >= .milliseconds(200), "delays among cancelled ones succeed no earlier than asked", call: call,
                expected: "after 200 ms or more", observed: "after \(elapsed)")
            let beyondCall = "2 × backend.delay(.seconds(1 << 40), token: endless), then endless.cancel()"
            for task in beyond {
                c.expectPending(task, "a delay past any clock's range does not succeed early", call: beyondCall)
            }
            endless.cancel()
            for task in beyond {
                c.expectOutcome(task, .cancelled, "a delay past any clock's range completes cancelled with its token", call: beyondCall)
            }
        }
    }
}
