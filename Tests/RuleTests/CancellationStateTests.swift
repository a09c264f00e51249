import TaskAPI
import Testing

/// `CancellationState`, the value every standard cancellation source keeps under its lock: the
/// handlers come back in registration order however registrations and disposals interleave, and
/// a disposed handler is released at once, before `cancel()` (C4.2). These check the storage
/// (an array in registration order with tombstones, swept out once they outnumber the live
/// handlers); the rule suite checks the sources built on it.
@Suite("C4.1, C4.2 Cancellation state: registration order, disposal")
struct CancellationStateTests {
    /// A handler that says which registration it was and is released when its last copy goes.
    final class Tracked: Sendable {
        let number: Int
        init(_ number: Int) { self.number = number }
    }

    @Test("C4.2 handlers come back in registration order, disposed ones left out, after sweeps")
    func orderAcrossDisposalsAndSweeps() {
        var state = CancellationState<Int>()
        var ids: [Int: UInt64] = [:]
        var live: [Int] = []
        // 1,000 registrations, every third disposed right away and every fifth a few later:
        // enough tombstones to sweep many times, the survivors scattered between them.
        for number in 0..<1_000 {
            guard let id = state.register(number) else {
                Issue.record("registration \(number) refused before cancel()")
                return
            }
            ids[number] = id
            live.append(number)
            if number % 3 == 0 {
                state.dispose(id)
                live.removeAll { $0 == number }
            }
            if number % 5 == 0, number >= 10, let earlier = ids[number - 7] {
                state.dispose(earlier)
                live.removeAll { $0 == number - 7 }
            }
        }
        #expect(state.cancel() == live)
    }

    @Test("C4.2 a disposed handler is released at dispose, not at cancel(); disposing twice is harmless")
    func disposeReleases() {
        var state = CancellationState<Tracked>()
        weak var released: Tracked?
        var keptID: UInt64?
        do {
            let handler = Tracked(1)
            released = handler
            keptID = state.register(handler)
        }
        let other = state.register(Tracked(2))
        #expect(released != nil)
        guard let keptID, let other else {
            Issue.record("registration refused before cancel()")
            return
        }
        state.dispose(keptID)
        #expect(released == nil, "the disposed handler is still held")
        state.dispose(keptID)
        #expect(state.cancel()?.map(\.number) == [2])
        state.dispose(other)  // after cancel(): ignored
    }

    @Test("C4.1, C4.2 cancel() hands the handlers over once; a later registration is refused")
    func cancelOnce() {
        var state = CancellationState<Int>()
        _ = state.register(1)
        _ = state.register(2)
        #expect(state.cancel() == [1, 2])
        #expect(state.isCancellationRequested)
        #expect(state.cancel() == nil)
        #expect(state.register(3) == nil)
    }
}
