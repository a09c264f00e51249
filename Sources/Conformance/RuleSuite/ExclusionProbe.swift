import ScheduleKit
import TaskAPI

extension RuleSuite {
    /// Rounds of two jobs on one executor that must run one job at a time (C7.2's serial
    /// executors, C9.8's main executor): the first job waits up to `hold` for the second to
    /// start, which a serial executor never lets it do, and the second notes whether the first
    /// had ended when it started. Handed over by the first job itself (`handOff`), or queued
    /// behind it by the caller.
    ///
    /// The wait is what makes the probe bite: jobs that run for microseconds rarely overlap even
    /// on an executor that runs them all at once, so counting overlaps of short jobs (the check of
    /// C7.2's FIFO order) let a concurrent "serial" executor pass; here a correct executor leaves
    /// the second job queued until the wait times out, and one that runs jobs side by side starts
    /// it while the first waits, which the first then sees, in every round.
    struct ExclusionProbe {
        /// Rounds run.
        var rounds = 0
        /// Rounds whose second job started before the first ended: while the first waited for it
        /// (its wait saw it start), or before the first began (queued by the caller).
        var overlapped = 0
        /// Whether a round's second job never ran (within `patience`): the rounds stop there.
        var lostJob = false

        /// Runs `rounds` rounds through `execute` (the executor's `execute`).
        static func run(
            rounds: Int, hold: Duration, handOff: Bool,
            execute: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void
        ) -> ExclusionProbe {
            var probe = ExclusionProbe()
            for _ in 0..<rounds {
                let started = Latch()
                let finished = Latch()
                let firstEnded = Counter()
                let overlaps = Counter()
                let second: @Sendable () -> Void = {
                    if firstEnded.count == 0 { overlaps.increment() }
                    started.open()
                    finished.open()
                }
                execute {
                    if handOff { execute(second) }
                    if started.wait(until: MonotonicClock.deadline(after: hold)) { overlaps.increment() }
                    firstEnded.increment()
                }
                if !handOff { execute(second) }
                probe.rounds += 1
                guard finished.wait(until: MonotonicClock.deadline(after: patience)) else {
                    probe.lostJob = true
                    break
                }
                if overlaps.count > 0 { probe.overlapped += 1 }
            }
            return probe
        }

        /// The call a round makes, as a failure prints it.
        static func call(_ executor: String, hold: Duration, handOff: Bool, rounds: Int) -> String {
            handOff
                ? "\(executor).execute { \(executor).execute { second }; wait up to \(hold) for second to start }, \(rounds) rounds"
                : "\(executor).execute { wait up to \(hold) for the next job to start }; \(executor).execute { second }, \(rounds) rounds"
        }

        /// Records what the rounds saw: every second job ran, none beside its first.
        func judge(_ c: RuleContext, call: String, executor: String) {
            c.expect(
                !lostJob, "\(executor) runs every job it is given", call: call,
                expected: "the second job of each round ran within \(patience)",
                observed: "round \(rounds)'s second job never ran")
            c.expect(
                overlapped == 0, "\(executor) runs one job at a time: a job queued behind a running one starts after it ended",
                call: call, expected: "each round's second job started after its first ended",
                observed: "the second job started before the first ended in \(overlapped) of \(rounds) rounds")
        }
    }
}
