import Foundation
import TaskAPI
import Testing

/// A `run`'s task is the waker of its own first `await` (no `ValueResumer`, `RunTask`), and a
/// lone waker is woken by the completion without a delivery phase (`TaskCore.complete`): the
/// awaits a `run`'s task sees in every order, cancelled or not, as the rules say them.
@Suite("C6.5, C4.7 awaiting a run's task")
struct KitRunAwaiterTests {
    /// A `run` whose body waits for `gate` to succeed, then returns `value`.
    private static func gated(_ backend: any TaskBackend, _ gate: any AsyncTask<Int>, _ value: Int) -> any AsyncTask<Int> {
        backend.run { _ in try gate.get() + value }
    }

    @Test("C4.7 a cancelled first await leaves the run's task alone; a later await gets the value", arguments: Backends.all)
    func cancelledFirstAwait(_ c: BackendCase) async throws {
        let gate = c.backend.makeSource(of: Int.self)
        let task = Self.gated(c.backend, gate.task, 40)
        // The first await claims the task's own waker, and its Swift task's cancellation ends it.
        let first = Task.detached { try await task.value }
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        #expect(task.status != .completed)
        // Later awaits use a waker of their own: one before and one after the completion.
        let second = Task.detached { try await task.value }
        gate.trySucceed(2)
        #expect(try await second.value == 42)
        #expect(try await task.value == 42)
    }

    /// The cancelled first await ends on its cancellation, not on the task's completion: a thread
    /// outside the Swift pool opens the gate once that await has ended, or 10 s after the
    /// awaiting task began, so a cancellation the task's own waker ignores (mutant 9 of the fifth
    /// mutation run, docs/results/2026-11-28-mutation-5.md) makes the await return the value, not
    /// hang. The 10 s count from the awaiting task's start, not the test's: in a crowded test
    /// process the Swift pool can take longer than that to start it, and the gate must not open
    /// before the await was made.
    @Test("C4.7 a cancelled first await of a run's task throws before the task completes", arguments: Backends.all)
    func cancelledFirstAwaitEndsFirst(_ c: BackendCase) async throws {
        let gate = c.backend.makeSource(of: Int.self)
        let task = Self.gated(c.backend, gate.task, 1)
        let began = c.backend.makeSource(of: Void.self)
        let ended = c.backend.makeSource(of: Void.self)
        Thread {
            _ = began.task.wait()
            _ = ended.task.wait(timeout: .seconds(10))
            gate.trySucceed(0)
        }.start()
        let first = Task.detached {
            defer { ended.trySucceed(()) }
            began.trySucceed(())
            return try await task.value
        }
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        #expect(try await task.value == 1)
    }

    @Test("C6.3 every await of one run's task wakes, the first on the task's own waker", arguments: Backends.all)
    func manyAwaits(_ c: BackendCase) async throws {
        let gate = c.backend.makeSource(of: Int.self)
        let task = Self.gated(c.backend, gate.task, 5)
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 { group.addTask { try await task.value } }
            gate.trySucceed(1)
            var count = 0
            for try await value in group {
                #expect(value == 6)
                count += 1
            }
            #expect(count == 50)
        }
    }

    @Test("C4.7 an await from a Swift task cancelled before it starts throws, and the run's task completes", arguments: Backends.all)
    func cancelledBeforeAwaiting(_ c: BackendCase) async throws {
        let gate = c.backend.makeSource(of: Int.self)
        let task = Self.gated(c.backend, gate.task, 0)
        let started = c.backend.makeSource(of: Void.self)
        let awaiting = Task.detached {
            // Cancelled before the await below: its cancellation handler runs at once.
            try await started.task.value
            return try await task.value
        }
        awaiting.cancel()
        started.trySucceed(())
        await #expect(throws: CancellationError.self) { try await awaiting.value }
        gate.trySucceed(9)
        #expect(try await task.value == 9)
    }

    @Test("C3.2, C6.5 a run's task whose body throws throws to its first await", arguments: Backends.all)
    func failure(_ c: BackendCase) async throws {
        let gate = c.backend.makeSource(of: Int.self)
        let failing: any AsyncTask<Int> = c.backend.run { _ in
            _ = try gate.task.get()
            throw TaskError.emptyInput("body")
        }
        let awaiting = Task.detached { try await failing.value }
        gate.trySucceed(0)
        await #expect(throws: TaskError.emptyInput("body")) { try await awaiting.value }
        await #expect(throws: TaskError.emptyInput("body")) { try await failing.value }
    }
}
