import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The partner thread of a `RaceRounds` step: a thread of the harness's own that runs one job at
/// a time, handed over by the driver, until stopped.
final class RacePartner: Sendable {
    private let job = PlainLocked<(@Sendable () -> Void)?>(nil)
    private let stopped = Atomic<Bool>(false)
    private let go = DispatchSemaphore(value: 0)

    init() {
        // The thread keeps the partner until it ends: at `stop()`, or never for a stuck job.
        let thread = Thread { [self] in loop() }
        thread.name = "conformance race partner"
        thread.start()
    }

    private func loop() {
        while true {
            go.wait()
            if stopped.load(ordering: .acquiring) { return }
            let next = job.withLock { job in
                defer { job = nil }
                return job
            }
            next?()
        }
    }

    /// Hands `work` over; the partner runs it at once, or after the job it is running.
    func run(_ work: @escaping @Sendable () -> Void) {
        job.withLock { $0 = work }
        go.signal()
    }

    /// The thread ends once its job returned (never, for a job stuck in a lost wake-up).
    func stop() {
        stopped.store(true, ordering: .releasing)
        go.signal()
    }
}

/// Two threads meet here and leave together: each arrives, then spins until the other has.
/// Bounded: a partner that does not come within 1,100,000 polls (the last of them yields) is not
/// waited for (the round then races less, and checks the same).
final class RaceBarrier: Sendable {
    private let arrived = Atomic<Int>(0)

    /// Arrives, waits for the other, then spins `delay` more polls before leaving.
    /// Spins (the two must leave within nanoseconds of each other, which only spinning gives; a
    /// woken partner comes within tens of microseconds), for at most 1,000,000 polls, a millisecond
    /// or two; then yields its processor while it waits: on a loaded machine a partner not yet
    /// running needs that processor more than the spin does (a core burnt longer would delay the
    /// program's timers and other drivers). Measured: yielding after 100,000 polls already made
    /// the planted races of RaceRoundsTests several times rarer on a loaded machine.
    func meet(delay: Int = 0) {
        arrived.add(1, ordering: .acquiringAndReleasing)
        var polls = 0
        while arrived.load(ordering: .acquiring) < 2, polls < 1_100_000 {
            polls += 1
            if polls > 1_000_000 { sched_yield() }
        }
        for _ in 0..<delay { _ = arrived.load(ordering: .relaxed) }
    }

    /// The skew of round `round`, in polls: positive delays the driver's call, negative the
    /// partner's; `skewSteps` steps of 24 polls from -768 to 768, then again.
    static func skew(round: Int) -> Int { (round % skewSteps - skewSteps / 2) * 24 }

    /// The rounds of one sweep of the skew.
    static let skewSteps = 65
}

/// A count bumped from any thread.
final class RaceCounter: Sendable {
    private let count = Atomic<Int>(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .acquiring) }
}
