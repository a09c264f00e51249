import TaskAPI
import Testing

/// C9.11: a `WorkGroup` counts joined tasks until they complete; `idle()` succeeds once none is
/// pending, waiting also for tasks joined after it was asked for; `wait` blocks until then.
@Suite("C9.11 Work groups")
struct C9WorkGroupTests {
    @Test(
        "C9.11 idle() succeeds once every joined task completed, whatever its outcome, also tasks joined meanwhile",
        arguments: Backends.all)
    func idleWaitsForEveryJoinedTask(_ c: BackendCase) throws {
        let backend = c.backend
        let group = WorkGroup(backend: backend)
        #expect(group.idle().completion?.isSuccess == true, "an empty group is idle at once")
        let first = backend.makeSource(of: Int.self)
        let second = backend.makeSource(of: String.self)
        group.join(first.task)
        let shown = group.join(second.task.map { $0.count })
        let idle = group.idle()
        let third = backend.makeSource(of: Void.self)
        group.join(third.task)  // joins while the group is waited on
        #expect(group.pendingCount == 3)
        first.tryFail(UnwrapError.inner)
        second.tryCancel()
        #expect(idle.wait(timeout: .milliseconds(20)) == nil, "a joined task is still pending")
        #expect(group.wait(timeout: .milliseconds(1)) == false)
        third.trySucceed()
        #expect(idle.settle()?.isSuccess == true)
        #expect(shown.settle()?.isCancelled == true, "join returns the joined task")
        #expect(group.pendingCount == 0)
        #expect(group.wait(timeout: .seconds(10)))
        // After idle, a new join starts a new round.
        let fourth = backend.makeSource(of: Int.self)
        group.join(fourth.task)
        let next = group.idle()
        #expect(next.wait(timeout: .milliseconds(20)) == nil)
        fourth.trySucceed(4)
        #expect(next.settle()?.isSuccess == true)
    }

    @Test("C9.11 wait() returns once every joined body has run", arguments: Backends.all)
    func waitBlocksUntilIdle(_ c: BackendCase) {
        let backend = c.backend
        let group = WorkGroup(backend: backend)
        let done = Counter()
        for _ in 0..<50 {
            group.join(backend.run { done.increment() })
        }
        group.wait()
        #expect(done.count == 50)
        #expect(group.pendingCount == 0)
    }
}
