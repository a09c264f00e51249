import BackendGCD
import Dispatch
import Synchronization
import TaskAPI
import Testing

/// The GCD default executor drains its queue with at most one block per processor on the global
/// queue, and a drainer queues itself again after a batch of jobs (`GCDDefaultExecutor.batch`):
/// a steady stream of jobs must not hold Dispatch's threads until the stream ends, or serial
/// queues, timers and any other code on the global queue would wait behind all of it.
@Suite struct GCDDrainerTests {
    @Test("C7.2 a saturated gcd default executor leaves other work on the global queue its turn")
    func otherGlobalWorkRunsBetweenBatches() {
        let backend = GCDBackend()
        let total = 2_000
        let done = Atomic<Int>(0)
        let allDone = DispatchSemaphore(value: 0)
        for _ in 0..<total {
            backend.defaultExecutor.execute {
                // About 50 us of work per job: the stream keeps both drainers busy for ~50 ms.
                let start = DispatchTime.now().uptimeNanoseconds
                while DispatchTime.now().uptimeNanoseconds - start < 50_000 {}
                if done.add(1, ordering: .relaxed).newValue == total { allDone.signal() }
            }
        }
        let seenAt = Atomic<Int>(-1)
        let ran = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            seenAt.store(done.load(ordering: .relaxed), ordering: .relaxed)
            ran.signal()
        }
        ran.wait()
        allDone.wait()
        // Behind whole batches, not behind the whole stream.
        #expect(
            seenAt.load(ordering: .relaxed) < total / 2,
            "the global queue's block ran after \(seenAt.load(ordering: .relaxed)) of \(total) jobs")
    }
}
