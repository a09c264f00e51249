import Dispatch
import TaskAPI
import Testing

@testable import BackendKit

/// A kit `whenAll` joins its inputs three ways (`TaskCore.join(_:at:)`): a `run` task not yet
/// completed keeps the join in its own fields, as its first continuation; an input completed and
/// delivered reports at once; any other input gets a `JoinSlot` node. Its values are collected
/// without a lock (`KitCollector`). The rule checks mostly join inputs of one shape; these mix
/// them, and race the collector's reports against an early finish.
@Suite struct KitJoinTests {
    @Test(
        "C5.1 a join of run tasks mixing kept joins, nodes, reports in place and a repeated input succeeds in input order",
        arguments: Backends.all)
    func mixedInputsKeepInputOrder(_ c: BackendCase) throws {
        let backend = c.backend
        // Completed and delivered: it reports at once. Made first: the held bodies below may
        // occupy every thread of the default executor.
        let done = backend.run { _ in 5 }
        _ = done.settle()
        let gate = DispatchSemaphore(value: 0)
        // Held at their start: the join is kept in them (the first continuation) ...
        let held = (0..<4).map { i in
            backend.run { _ in
                gate.wait()
                gate.signal()
                return i
            }
        }
        // ... or, with a continuation registered before it, gets a node.
        let registeredFirst = backend.run { _ in
            gate.wait()
            gate.signal()
            return 4
        }
        registeredFirst.whenComplete(on: backend.inlineExecutor) { _ in }
        let inputs = held + [registeredFirst, done, held[1]]
        let joined = backend.whenAll(inputs)
        #expect(!joined.isCompleted)
        gate.signal()
        #expect(try joined.settle()?.get() == [0, 1, 2, 3, 4, 5, 1])
    }

    @Test(
        "C2.4 a join kept in a run task is handed over before the continuations registered after it",
        arguments: Backends.all)
    func keptJoinRunsFirst(_ c: BackendCase) {
        let backend = c.backend
        let gate = DispatchSemaphore(value: 0)
        let input = backend.run { _ in
            gate.wait()
            return 1
        }
        let joined = backend.whenAll([input])
        let joinedFirst = Counter()
        let ran = DispatchSemaphore(value: 0)
        input.whenComplete(on: backend.inlineExecutor) { _ in
            if joined.isCompleted { joinedFirst.increment() }
            ran.signal()
        }
        gate.signal()
        #expect(ran.wait(timeout: .now() + 10) == .success)
        // The continuation ran after the join's report, which completed the joined task.
        #expect(joinedFirst.count == 1)
        #expect(joined.settle() != nil)
    }

    @Test(
        "C5.5 the join collector hands every value out once when the last is in, or drops them all when it finishes early")
    func collectorRacesItsFinish() {
        final class Value: Sendable {
            let index: Int
            init(_ index: Int) { self.index = index }
        }
        let count = 64
        for round in 0..<200 {
            let collector = KitCollector<Value>(count: count)
            // The rule suite's recorders: their lock is visible to the thread sanitizer, which
            // does not see `Mutex`'s hand-offs.
            let handedOut = Recorder<[Int]>()
            let finishedFirst = Counter()
            let weakValues = Recorder<JoinWeakBox>()
            // Two threads report half the slots each; a third finishes early in some rounds.
            DispatchQueue.concurrentPerform(iterations: 3) { worker in
                if worker == 2 {
                    if round % 2 == 0, collector.finish() { finishedFirst.increment() }
                    return
                }
                for index in stride(from: worker, to: count, by: 2) {
                    let value = Value(index)
                    weakValues.append(JoinWeakBox(value))
                    if let all = collector.record(value, at: index) {
                        handedOut.append(all.map(\.index))
                    }
                }
            }
            let finished = finishedFirst.count == 1
            let all = handedOut.all.first
            #expect(handedOut.all.count <= 1, "round \(round): handed out once")
            // Exactly one of them took the slots.
            #expect(finished != (all != nil), "round \(round)")
            if let all { #expect(all == Array(0..<count), "round \(round)") }
            #expect(!collector.finish(), "round \(round): done once")
            // Handed out and let go, or dropped at the finish: the collector holds none.
            #expect(weakValues.all.count == count && weakValues.all.allSatisfy { $0.value == nil }, "round \(round)")
        }
    }

    @Test("C5.5 the join collector drops the values it holds at once when it finishes early, and any reported later")
    func collectorFinishDropsItsValues() {
        final class Value: Sendable {}
        let collector = KitCollector<Value>(count: 4)
        var boxes: [JoinWeakBox] = []
        for index in 0..<2 {
            let value = Value()
            boxes.append(JoinWeakBox(value))
            #expect(collector.record(value, at: index) == nil)
        }
        #expect(boxes.allSatisfy { $0.value != nil })
        #expect(collector.finish())
        #expect(boxes.allSatisfy { $0.value == nil })
        let late = Value()
        let lateBox = JoinWeakBox(late)
        #expect(collector.record(late, at: 2) == nil)
        _ = consume late
        #expect(lateBox.value == nil)
        #expect(!collector.finish())
    }

    @Test("C5.1 a second report for one index (an input's continuation run twice) is dropped, not written over the first")
    func collectorDropsASecondReportForOneIndex() throws {
        final class Value: Sendable {
            let number: Int
            init(_ number: Int) { self.number = number }
        }
        let collector = KitCollector<Value>(count: 2)
        let first = Value(1)
        #expect(collector.record(first, at: 0) == nil)
        let again = Value(2)
        let againBox = JoinWeakBox(again)
        #expect(collector.record(again, at: 0) == nil)
        _ = consume again
        #expect(againBox.value == nil, "the second report's value is kept")
        let all = try #require(collector.record(Value(3), at: 1))
        #expect(all.map(\.number) == [1, 3])
        #expect(all[0] === first)
    }

    @Test("C5.5 the join collector drops the values it holds when it is freed before it is done")
    func collectorFreedEarlyDropsItsValues() {
        final class Value: Sendable {}
        var collector: KitCollector<Value>? = KitCollector(count: 3)
        let weak = JoinWeakBox(nil)
        do {
            let value = Value()
            weak.value = value
            #expect(collector?.record(value, at: 1) == nil)
        }
        #expect(weak.value != nil)
        collector = nil
        #expect(weak.value == nil)
    }
}

/// A weak reference a test can keep in a collection.
final class JoinWeakBox: @unchecked Sendable {
    // @unchecked: written once before it is shared, or by one thread while no other reads.
    weak var value: AnyObject?
    init(_ value: AnyObject?) { self.value = value }
}
