import Synchronization
import Testing

@testable import BackendKit

/// BackendKit's `JobRing`, the queue of every kit pool and of GCD's default executor, on its
/// buffer of its own: jobs come out in the order they went in (across growth with the queued
/// jobs wrapped around the buffer's end), each once, and the ring keeps nothing of a job it
/// handed out or dropped (the pools' C7.3 and C8.1 rest on it).
@Suite("C7.3, C8.1 The kit's job ring")
struct JobRingTests {
    /// The jobs' record of what ran, in order.
    final class Record: Sendable {
        let ran = Mutex<[Int]>([])

        func job(_ index: Int) -> @Sendable () -> Void {
            { self.ran.withLock { $0.append(index) } }
        }
    }

    /// A reference a job captures, to see when the last owner lets it go.
    final class Capture: Sendable {}

    @Test("C7.3 jobs run once each, oldest first, across growth with the queue wrapped")
    func fifoAcrossWrappedGrowth() {
        let record = Record()
        var ring = JobRing(keptCapacity: 1_024)
        var next = 0
        // 10 in, 7 out: the head moves to 7, so the 16-slot buffer's 40 pushes below wrap
        // around its end before it grows, twice (16 -> 32 -> 64).
        for _ in 0..<10 {
            ring.push(record.job(next))
            next += 1
        }
        for _ in 0..<7 { ring.pop().run() }
        for index in 0..<40 {
            if index.isMultiple(of: 2) {
                var slot = JobRing.Slot(record.job(next))
                ring.push(moving: &slot)
                #expect(slot.isEmpty, "push(moving:) left the job in the caller's slot")
            } else {
                ring.push(JobRing.Slot(record.job(next)))
            }
            next += 1
        }
        #expect(ring.count == 43)
        #expect(ring.capacity == 64)
        while !ring.isEmpty { ring.pop().run() }
        #expect(record.ran.withLock { $0 } == Array(0..<next))
        #expect(ring.pop().isEmpty, "an empty ring answered a job")
    }

    @Test("C8.1 a popped job's captures are released once it has run; a drained large ring frees its storage")
    func poppedJobsAreReleased() {
        var ring = JobRing(keptCapacity: 16)
        weak var first: Capture?
        for _ in 0..<20 {
            let capture = Capture()
            if first == nil { first = capture }
            ring.push { _ = capture }
        }
        #expect(ring.capacity == 32)
        ring.pop().run()
        #expect(first == nil, "the ring kept the captures of a job it handed out")
        while !ring.isEmpty { ring.pop().run() }
        #expect(ring.capacity == 0, "a drained ring above its kept capacity kept its storage")
        #expect(ring.storage == nil)
    }

    @Test("C8.1 a ring dropped with jobs queued, wrapped around its end, releases each once")
    func droppedRingReleasesQueuedJobs() {
        weak var wrapped: Capture?
        weak var front: Capture?
        do {
            var ring = JobRing(keptCapacity: 1_024)
            for _ in 0..<12 { ring.push {} }
            for _ in 0..<12 { ring.pop().run() }
            // The head is back at 0 once drained; 14 in, 10 out (the head at 10), then 8 with
            // captures: the first 2 at the buffer's last slots, the other 6 wrapped to its start.
            for _ in 0..<14 { ring.push {} }
            for _ in 0..<10 { ring.pop().run() }
            for index in 0..<8 {
                let capture = Capture()
                if index == 0 { front = capture }
                if index == 7 { wrapped = capture }
                ring.push { _ = capture }
            }
            #expect(ring.count == 12)
            #expect(ring.capacity == 16)
            #expect(wrapped != nil && front != nil)
        }
        #expect(front == nil, "a job queued before the wrap outlived its dropped ring")
        #expect(wrapped == nil, "a job queued after the wrap outlived its dropped ring")
    }
}
