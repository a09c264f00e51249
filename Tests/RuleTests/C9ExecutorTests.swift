import BackendGCD
import Dispatch
import TaskAPI
import Testing

/// BackendGCD's `DispatchQueueExecutor` (C9.7); `isCurrent` of the backends' own executors is
/// checked by the rule suite (RuleSuiteTests).
@Suite("C9.7 Ready-made executors")
struct C9ExecutorTests {
    @Test("C9.7 a DispatchQueueExecutor and a ClosureExecutor run each job once and know their own", arguments: Backends.all)
    func readyMade(_ c: BackendCase) throws {
        let backend = c.backend
        let queue = DispatchQueueExecutor(DispatchQueue(label: "c9.7-queue"))
        let submitted = Counter()
        let closure = ClosureExecutor(isCurrent: { queue.isCurrent }) { job in
            submitted.increment()
            queue.execute(job)
        }
        let onQueue = backend.run(on: queue) { queue.isCurrent }
        let viaClosure = onQueue.map(on: closure) { $0 && closure.isCurrent }
        #expect(try viaClosure.settle()?.get() == true)
        #expect(submitted.count == 1)
        #expect(!queue.isCurrent && !closure.isCurrent)
        #expect(!ClosureExecutor { $0() }.isCurrent, "no isCurrent closure: false")
    }
}
