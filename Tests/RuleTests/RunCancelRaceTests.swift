import TaskAPI
import Testing

/// A `run` whose token is cancelled while its job waits: the job finds the token's handler holding
/// the start gate and returns, and the handler completes the task cancelled (C4.3, C4.5). The job
/// then releases what fails a task whose job was dropped unrun (C8.3); that must not overtake the
/// handler's cancellation. The rule suite's C4.5 check caught this race in about three runs of
/// four; these rounds catch it every time (a kit `run` that abandoned on every release failed
/// in the first round).
@Suite("C4.5, C8.3 run racing its token")
struct RunCancelRaceTests {
    @Test("C4.5 a run cancelled while queued ends cancelled or successful, never abandoned", arguments: Backends.all)
    func cancelledWhileQueued(_ c: BackendCase) throws {
        let backend = c.backend
        for round in 0..<100 {
            let bodies = Counter()
            var tasks: [any AsyncTask<Int>] = []
            for _ in 0..<300 {
                let source = backend.makeCancellationSource()
                tasks.append(
                    backend.run(token: source.token) { _ in
                        bodies.increment()
                        return 1
                    })
                source.cancel()
            }
            let all = try #require(try backend.whenAllSettled(tasks).settle()?.get())
            let successes = all.filter(\.isSuccess).count
            let cancels = all.filter(\.isCancelled).count
            try #require(successes + cancels == all.count, "round \(round): \(all.count - successes - cancels) neither")
            try #require(successes == bodies.count, "round \(round): a body that ran gives the task its outcome")
        }
    }
}
