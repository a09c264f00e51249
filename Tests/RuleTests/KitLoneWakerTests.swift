import ScheduleKit
import Synchronization
import TaskAPI
import Testing

@testable import BackendKit

/// A completion whose only continuation is a waker wakes it itself, with no delivery phase
/// (`TaskCore.complete`). A completion that is refused (C1.2) must leave a waker stored meanwhile
/// to the delivery that stored it: a waker registered during a delivery, then a second completion.
@Suite struct KitLoneWakerTests {
    private static func makeWaiter() -> Waiter {
        #if PlantedBugs
        Waiter(plantedBugs: PlantedBugSwitch())
        #else
        Waiter()
        #endif
    }

    @Test(
        "C1.2, C6.3 a completion refused while a lone waker waits in a delivery leaves it to that delivery",
        arguments: Backends.all)
    func refusedCompletionLeavesStoredWaker(_ c: BackendCase) throws {
        let source = c.backend.makeSource(of: Int.self)
        let task = try #require(source.task as? KitTask<Int>)
        let waiter = Self.makeWaiter()
        let refused = Mutex<Bool?>(nil)
        let stored = Mutex<Bool?>(nil)
        // The first inline body runs in the first completion's delivery phase: a waker registered
        // there is stored behind it, and is the task's lone continuation when the second
        // completion comes.
        source.task.whenComplete(on: c.backend.inlineExecutor) { _ in
            stored.withLock { $0 = task.registerWaker(waiter) == nil }
            let won = source.trySucceed(2)
            refused.withLock { $0 = !won }
        }
        #expect(source.trySucceed(1))
        #expect(stored.withLock { $0 } == true)
        #expect(refused.withLock { $0 } == true)
        // Handed over by the delivery that stored it, once the body returned.
        #expect(waiter.wait(until: nil))
        #expect(source.task.wait().value == 1)
    }
}
