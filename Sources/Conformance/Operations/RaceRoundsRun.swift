import Dispatch
import Foundation
import Synchronization
import TaskAPI

/// One `RaceRounds` step's run: its partner thread, and each round's two calls and judgment.
/// Every round makes its objects fresh, starts both calls at once (`RaceBarrier`), and judges
/// only what holds whichever call came first.
final class RaceRoundsRun: Sendable {
    typealias Pair = ProgramOperation.RaceRounds.Pair
    typealias Loss = ProgramOperation.RaceRounds.Loss

    let pair: Pair
    let backend: any TaskBackend
    /// How long the driver waits for the partner's call, or for jobs, before calling it lost.
    let limit: Duration
    private let partner = RacePartner()
    /// Rounds raced so far (the skew's sweep).
    private let rounds = Atomic<Int>(0)

    /// Jobs each thread hands a serial executor in a `serialJobs` round.
    static let jobsPerSide = 32

    init(pair: Pair, backend: any TaskBackend, limit: Duration) {
        self.pair = pair
        self.backend = backend
        self.limit = limit
    }

    /// Round `index`: nil if it went right.
    func round(_ index: Int) -> Loss? {
        switch pair {
        case .waitComplete: return waitComplete(index)
        case .waitTimeoutComplete: return waitTimeoutComplete(index)
        case .registerCancel: return registerCancel(index)
        case .startStart: return startStart(index)
        case .sourceStartStart: return sourceStartStart(index)
        case .serialJobs: return serialJobs(index)
        }
    }

    /// Ends the partner thread (one stuck in a call, a lost round's, is left to it).
    func finish() {
        partner.stop()
    }

    /// The partner's result, or nil if its call did not return within `limit`.
    /// The two calls leave the barrier together, one of them delayed by a skew that sweeps, round
    /// by round, from the partner's call well behind the driver's to well ahead of it: the paths
    /// to a race's window differ in length, and a fixed alignment could keep missing it.
    private func race<R: Sendable>(partner partnerHalf: @escaping @Sendable () -> R, driver driverHalf: () -> Void) -> R? {
        let barrier = RaceBarrier()
        let result = PlainLocked<R?>(nil)
        let done = DispatchSemaphore(value: 0)
        let skew = RaceBarrier.skew(round: rounds.add(1, ordering: .relaxed).oldValue)
        partner.run {
            barrier.meet(delay: max(0, -skew))
            let value = partnerHalf()
            result.withLock { $0 = value }
            done.signal()
        }
        barrier.meet(delay: max(0, skew))
        driverHalf()
        guard done.wait(timeout: (Uptime.now + limit).dispatchTime) == .success else { return nil }
        return result.withLock { $0 }
    }

    private func loss(_ index: Int, _ rule: Rule, _ what: String, expected: String, observed: String) -> Loss {
        Loss(round: index, rule: rule, what: what, expected: expected, observed: observed)
    }

    private func waitComplete(_ index: Int) -> Loss? {
        let source = backend.makeSource(of: Int.self)
        let task = source.task
        guard let completion = race(partner: { task.wait() }, driver: { source.trySucceed(index) }) else {
            return loss(
                index, .c6_1, "wait() on a source's task, racing the trySucceed that completed it, never returned: a lost wake-up",
                expected: "returns success(\(index))", observed: "still blocked \(limit) after the completion")
        }
        return judged(completion, index, .c6_1, call: "wait()")
    }

    private func waitTimeoutComplete(_ index: Int) -> Loss? {
        let source = backend.makeSource(of: Int.self)
        let task = source.task
        let limit = self.limit
        let started = PlainLocked<Uptime?>(nil)
        let completed = PlainLocked<Uptime?>(nil)
        let result = race(
            partner: { () -> Completion<Int>? in
                started.withLock { $0 = Uptime.now }
                return task.wait(timeout: limit)
            },
            driver: {
                source.trySucceed(index)
                completed.withLock { $0 = Uptime.now }
            })
        guard let result else {
            return loss(
                index, .c6_2, "wait(timeout: \(limit)) racing the trySucceed that completed its task never returned",
                expected: "returns by its deadline", observed: "still blocked \(limit) after the completion")
        }
        guard let completion = result else {
            // nil is right only if the completion came after the deadline, which a race of
            // microseconds never does; the stamps say whether it did.
            if let start = started.withLock({ $0 }), let done = completed.withLock({ $0 }), done - start >= limit { return nil }
            return loss(
                index, .c6_2,
                "wait(timeout: \(limit)) returned nil although a racing trySucceed completed its task at once: a lost wake-up",
                expected: "success(\(index))", observed: "nil")
        }
        return judged(completion, index, .c6_2, call: "wait(timeout:)")
    }

    /// A wait that returned: it must have returned the value the racing `trySucceed` gave.
    private func judged(_ completion: Completion<Int>, _ index: Int, _ rule: Rule, call: String) -> Loss? {
        let outcome = Outcome(completion)
        guard outcome != .success(index) else { return nil }
        return loss(
            index, rule, "\(call) racing trySucceed(\(index)) returned another outcome", expected: "success(\(index))",
            observed: outcome.description)
    }

    private func registerCancel(_ index: Int) -> Loss? {
        let source = backend.makeCancellationSource()
        let token = source.token
        let runs = RaceCounter()
        guard let registration = race(partner: { token.register { runs.add() } }, driver: { source.cancel() }) else {
            return loss(
                index, .c4_2, "register on a token, racing the cancel() of its source, never returned",
                expected: "returns", observed: "still blocked after \(limit)")
        }
        let count = runs.value
        withExtendedLifetime(registration) {}
        guard count == 1 else {
            return loss(
                index, .c4_2, "a handler registered as its token's source was cancelled had run \(count) times once both calls returned",
                expected: "exactly once (inside cancel(), or inside register if cancellation came first)", observed: "\(count) runs")
        }
        return nil
    }

    private func startStart(_ index: Int) -> Loss? {
        let runs = RaceCounter()
        let prepared = backend.prepare(on: backend.inlineExecutor) { (_: CancellationToken) -> Int in
            runs.add()
            return index
        }
        let driverWon = PlainLocked(false)
        guard let partnerWon = race(partner: { prepared.tryStart() }, driver: { driverWon.withLock { $0 = prepared.tryStart() } }) else {
            return loss(
                index, .c9_3, "tryStart() of a prepared task, racing another tryStart(), never returned",
                expected: "returns", observed: "still blocked after \(limit)")
        }
        let wins = (partnerWon ? 1 : 0) + (driverWon.withLock { $0 } ? 1 : 0)
        guard wins == 1 else {
            return loss(
                index, .c9_3, "two racing tryStart() calls on one prepared task: \(wins) returned true",
                expected: "exactly one returns true", observed: "\(wins)")
        }
        let outcome = prepared.task.wait(timeout: limit).map { Outcome($0) }
        let count = runs.value
        guard count == 1, outcome == .success(index) else {
            return loss(
                index, .c9_3, "a prepared task started by one of two racing tryStart() calls ran its body \(count) times",
                expected: "once, success(\(index))", observed: "\(count) runs, \(outcome?.description ?? "not completed")")
        }
        return nil
    }

    private func sourceStartStart(_ index: Int) -> Loss? {
        let source = backend.makeSource(of: Int.self)
        let driverWon = PlainLocked(false)
        guard let partnerWon = race(partner: { source.tryStart() }, driver: { driverWon.withLock { $0 = source.tryStart() } }) else {
            return loss(
                index, .c1_5, "tryStart() on a source, racing another tryStart(), never returned",
                expected: "returns", observed: "still blocked after \(limit)")
        }
        source.trySucceed(index)
        let wins = (partnerWon ? 1 : 0) + (driverWon.withLock { $0 } ? 1 : 0)
        guard wins == 1 else {
            return loss(
                index, .c1_5, "two racing tryStart() calls on one source: \(wins) returned true",
                expected: "exactly one returns true (pending to running once)", observed: "\(wins)")
        }
        return nil
    }

    private func serialJobs(_ index: Int) -> Loss? {
        let executor = backend.makeSerialExecutor(label: "conformance.race")
        let tally = SerialTally(jobs: 2 * Self.jobsPerSide)
        @Sendable func handOver(_ side: Int) {
            for job in 0..<Self.jobsPerSide { executor.execute { tally.run(side: side, job: job) } }
        }
        let handedOver = race(partner: { handOver(1) }, driver: { handOver(0) }) != nil
        return tally.loss(index, complete: handedOver && tally.wait(limit))
    }
}
