import Dispatch
import Testing
import TaskAPI
import BackendGCD

@Suite("C9.7 Ready-made executors")
struct C9ExecutorTests {
    @Test("C9.7 isCurrent is true inside an executor's own jobs and false elsewhere", arguments: Backends.all)
    func isCurrent(_ c: BackendCase) throws {
        let backend = c.backend
        let serial = backend.makeSerialExecutor(label: "c9.7")
        let other = backend.makeSerialExecutor(label: "c9.7-other")
        for executor in [backend.defaultExecutor, serial] {
            #expect(!executor.isCurrent, "the test thread is on no executor")
            let inside = backend.run(on: executor) { executor.isCurrent && !other.isCurrent }
            #expect(try inside.settle()?.get() == true)
        }
        let onSerial = backend.run(on: serial) { _ in serial.isCurrent }
        let afterward = onSerial.map(on: backend.defaultExecutor) { _ in serial.isCurrent }
        #expect(try onSerial.settle()?.get() == true)
        #expect(try afterward.settle()?.get() == false, "not on the serial executor once its job is over")
        #expect(!backend.inlineExecutor.isCurrent)
    }

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
