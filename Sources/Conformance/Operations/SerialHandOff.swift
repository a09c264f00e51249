import ScheduleKit
import Synchronization
import TaskAPI

extension ProgramOperation {
    /// `serial<n>.execute { its own execute { job }, then wait up to 1ms }`: a job on a serial
    /// executor hands that executor a second job, then waits a while for it: the second must not
    /// run before the first ended (C7.2: one job at a time), and runs exactly once (C7.3).
    ///
    /// The wait is what makes the probe bite. A serial executor that lets a second drain start
    /// while its last job runs (it marks itself idle when it takes that job, not when the job
    /// ends) hands the second job to another thread at once; nothing else in a program holds its
    /// last job open long enough for that thread to start, so a random schedule had to starve the
    /// first thread for a dozen points in a row (a planted bug of that kind survived 1,000
    /// controlled programs). Here the first job blocks, on a ScheduleKit `Latch` the second job
    /// opens, with the second job queued behind it: a correct executor leaves the second queued
    /// until the wait times out and the first ends; the faulty one runs it beside the first, which
    /// then sees it ran. On seats the wait is a schedule point that blocks on the run's clock,
    /// which moves only once no seat can go on: every thread that could start the second job
    /// starts it first, in every schedule, and the timeout costs no time. Under stress, and on
    /// interposed executors, it is a native wait of 1 ms. Not the backend's `wait(timeout:)`: the
    /// probe is of the serial executor, not of waiting: it blocks as a job's own code does, which
    /// the backend does not see (a pool worker's `wait` makes the pool start a replacement, C6.4,
    /// and changes the pool under test). The first version used it, and found the seated
    /// engine's own bug (ControlledReplayTests, seeds 1 and 2: C7.3 and C2.1 on correct threads
    /// and actors backends): once the wait timed out the pool had a worker too many, and a worker
    /// woken natively by a seat's signal, a seat since, found itself surplus and exited holding
    /// the baton. Such a seat now leaves as its thread ends (`WokenSeatTests`).
    ///
    /// A kind added after programs were recorded, so it draws from a stream of its own
    /// (`ownStream`): after every other step, only in programs with a serial executor.
    public struct SerialHandOff: TasklessOperation, FormattedOperation {
        public var serial = 0

        static let format: StepFormat<Self> = "serial\(\.serial).execute { its own execute { job }, then wait up to 1ms }"

        /// How long the first job waits for the second.
        static let wait = Duration.milliseconds(1)

        /// Never by the main stream: `ownStream` draws it.
        static func weight(in program: ProgramBuilder) -> Int { 0 }
        static var ownStream: OwnStream? { OwnStream(salt: 0x7365_7269_616C_4846, steps: [40, 35, 25]) }

        static func generate(into program: inout ProgramBuilder) {
            guard program.serials > 0 else { return }
            program.add(.serialHandOff(serial: program.rng.below(program.serials)))
        }

        var uses: [Use] { [] }
        func renumbered(_ ids: Renumbering) -> Self { self }

        var neverWaits: Bool { true }
        var registersOrCompletes: Bool { false }
        var entryPoints: [EntryPoint] {
            [.execute] + ExecutorRef.serial(serial).entryPoints
        }

        /// The first job, a job the step hands the executor (`ProgramExecution.hosted`): the hang
        /// diagnosis names it if it never ran.
        var host: CallHost? { .job(on: .serial(serial)) }
        /// The second job, logged as a burst's one job: run exactly once (C7.3), named by the hang
        /// diagnosis if it never ran.
        var burstJobs: Int? { 1 }

        func perform(in execution: ProgramExecution, step: Int) {
            guard serial < execution.executors.serial.count else { return }
            let executor = execution.executors.serial[serial]
            let (log, seated) = (execution.log, execution.seated)
            execution.hosted(.job(on: .serial(serial)), step: step) {
                let ran = Atomic<Bool>(false)
                let latch = Latch()
                log.callPending()
                executor.execute {
                    ProgramExecution.jobPoint(seated: seated)
                    ran.store(true, ordering: .releasing)
                    log.append(.burstJobRan(step: step, index: 0))
                    latch.open()
                }
                let waited = latch.wait(until: MonotonicClock.deadline(after: Self.wait))
                log.append(.serialHandOffReturned(step: step, waited: waited, secondRan: ran.load(ordering: .acquiring)))
            }
        }
    }

    public static func serialHandOff(serial: Int) -> Self { .serialHandOff(SerialHandOff(serial: serial)) }
}

extension ProgramOperation.SerialHandOff {
    /// The second job ran before the first ended (C7.2): its wait returned it, or it ran between
    /// the wait's timeout and the first job's end.
    func judgeProbe(_ event: EventKind, step: Int, slack: Duration) -> ProbeJudgement? {
        guard case .serialHandOffReturned(_, let waited, let secondRan) = event else { return nil }
        guard secondRan || waited else { return ProbeJudgement(exercised: [.c7_2]) }
        let finding = Finding(
            .c7_2,
            "step \(step) (\(self)): the job serial\(serial)'s running job handed it ran before that job ended"
                + (waited ? " (the running job's wait saw it run)" : ""),
            expected: "one job at a time: the second job queued until the first ended",
            observed: "the second job ran while the first \(waited ? "waited for it" : "still ran")")
        return ProbeJudgement(exercised: [.c7_2], findings: [finding])
    }
}
