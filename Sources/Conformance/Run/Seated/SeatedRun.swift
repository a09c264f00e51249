import Foundation
import ScheduleKit
import TaskAPI

/// Runs one program in controlled mode on an instrumented backend (`TaskBackend
/// .isScheduleInstrumented`): the seated engine. Every thread of the run is a seat of one
/// `SeatTable` (the drivers, the harness, and every thread the backend hands work to through
/// `SchedulePoint.fork`/`adopt`), one seat runs at a time, and every synchronization of TaskAPI's
/// primitives is a point where the strategy, drawing from the program's seed, may let another go
/// first. The backend's own executors run their jobs as they would without the harness (no
/// interposition): a push, a pop, a drainer's end, a worker parking are points like the rest.
///
/// Drivers may park at any point and may block: a `wait()` on a pending task, a `cancel()`
/// waiting for another's handlers, a lock another seat holds. A driver starts a step once the
/// ids it uses exist (`ProgramExecution.inputsReady`). When no seat can go on, the loop (this
/// function's thread) moves the run's clock to the earliest timed wait or timer (`RunClock`:
/// time passes only then, so timeouts come in the same order on every replay), or ends the phase;
/// a phase that ends with drivers not done is stuck, and the report names every seat and what it
/// is blocked on. The same seed gives the same event log, line by line.
///
/// Released before its end, to go on natively as under stress and be checked all the same: a
/// hand-off picked and not arrived within the timing slack (a thread the system did not give in
/// time), and a seat holding the baton that reaches no point within `blockedSeatLimit` (blocked
/// outside the primitives, on a lock, a semaphore or a wait of the backend's own, which a paused
/// seat may hold: the harness's serializing, not the backend, may be what blocks it). Either makes
/// the run not reproducible. So does a seated phase that reaches its cap, the livelock factor's
/// hang limits of real time, without becoming quiescent (seats that keep scheduling each other:
/// jobs that submit jobs, a timer that re-arms itself; or threads outside the run that keep
/// making progress). Natively each phase is watched as a stress phase (`PhaseWatch`): a run
/// that then makes no progress for the hang limit (the drivers' phase measured from the blocked
/// seat's last point) is a hang, diagnosed with that seat named (`Hang.Kind.blockedSeat`); one
/// that keeps making progress runs until its livelock cap.
extension ProgramRunner {
    func runSeated(_ program: Program, strategy: ScheduleStrategy, backend: any TaskBackend) -> RunRecord {
        let clock = RunClock()
        let log = EventLog(
            taskCount: program.taskCount, stamp: { clock.now },
            controlled: {
                guard let seat = SchedulePoint.current as? RunSeat else { return false }
                return seat.table.clock === clock && !seat.table.isReleased
            })
        let execution = ProgramExecution(
            program: program, backend: backend,
            executors: executors.makeExecutors(for: program, backend: backend),
            timingSlack: timingSlack, log: log, seated: true)
        let table = SeatTable(
            drivers: program.drivers,
            strategy: StrategyState(strategy: strategy, seed: program.seed, expectedPoints: Self.expectedPoints(program)),
            arrivalLimit: timingSlack, clock: clock, stepReady: { execution.inputsReady($0) })
        ProcessScheduleController.shared.begin(table)
        var run = SeatedRun(execution: execution, table: table, runner: self, strategy: strategy)
        let record = run.run()
        ProcessScheduleController.shared.end(table)
        return record
    }

    /// How long the seat holding the baton may reach no schedule point before the run is released
    /// to go on natively: the timing slack, at most half the hang limit. The slack is what the
    /// harness already grants a thread the system is slow to run (a picked hand-off's arrival
    /// limit is the same): a seat that holds the baton that long without a point is blocked, not
    /// slow, and a shorter bound would also release, and so lose the exact replay of, runs whose
    /// seat was only descheduled on a loaded machine. Half the hang limit at most, so that the
    /// native rest is at least as long: a lock a paused seat held has that long to be released
    /// before the run is called hung (2 s of a 10 s limit by default; 0.5 s of a shrink
    /// candidate's 1 s).
    var blockedSeatLimit: Duration { min(timingSlack, hangLimit / 2) }

    /// PCT's change points are drawn among this many choice points (points with two candidates
    /// or more): about what a program's steps and their jobs make.
    static func expectedPoints(_ program: Program) -> Int { 6 * program.steps.count + 6 }
}

/// One seated run under way: its seats' threads and its two phases.
struct SeatedRun {
    let execution: ProgramExecution
    let table: SeatTable
    let runner: ProgramRunner
    let strategy: ScheduleStrategy
    /// Driver and harness threads not finished yet (for a run that goes on natively).
    private let threads = DispatchGroup()
    /// The drivers' threads' CPU clocks: natively, a driver that keeps working is progress
    /// (`DriverCPUClocks`).
    private let clocks: DriverCPUClocks

    init(execution: ProgramExecution, table: SeatTable, runner: ProgramRunner, strategy: ScheduleStrategy) {
        self.execution = execution
        self.table = table
        self.runner = runner
        self.strategy = strategy
        clocks = DriverCPUClocks(drivers: execution.program.drivers, hangLimit: runner.hangLimit)
    }

    private var program: Program { execution.program }

    /// Every task the model expects to complete without the held sources has.
    private func phaseOneDone() -> Bool {
        execution.log.phaseOneDone(tasks: runner.progress.tasksDueInPhaseOne(of: program, events: execution.log.events))
    }

    mutating func run() -> RunRecord {
        var record = RunRecord(program: program, mode: .controlled(strategy))
        record.seated = true
        for driver in 0..<program.drivers {
            let steps = program.steps.indices.filter { program.steps[$0].driver == driver }
            guard let first = steps.first else { continue }
            table.expect(driver, step: first)
            start(seat: driver) { [execution, table] in
                for (index, step) in steps.enumerated() {
                    if index > 0, !table.nextStep(driver, step: step) {
                        // Released: the rest runs natively, as under stress.
                        for rest in steps[index...] { execution.runStep(rest) }
                        return
                    }
                    execution.runStep(step)
                }
            }
        }
        // Phase one: every step, and everything that can run without the held sources.
        switch phase(&record, name: "phase one", done: { [self] in table.driversDone && phaseOneDone() }) {
        case .some(let ended): return ended
        case .none: break
        }
        // Quiescent: nothing in the run can move any more. A driver not done, or a task the model
        // says needs no held source and is still pending, will never be (a lost job, a lost
        // wake-up, a lost continuation): stuck, reported at once.
        guard table.driversDone, phaseOneDone() else {
            return stuck(&record, heldCompleted: false)
        }
        record.snapshot = execution.log.completedTasks
        // Phase two: the harness completes the held sources, on a seat of its own.
        table.expect(table.harnessKey, step: -1)
        start(seat: table.harnessKey) { [execution] in execution.completeHeldSources() }
        switch phase(&record, name: "phase two", done: { [execution] in execution.log.waitForQuiescence(deadline: .now) }) {
        case .some(let ended): return ended
        case .none: break
        }
        guard execution.log.waitForQuiescence(deadline: .now) else {
            return stuck(&record, heldCompleted: true)
        }
        release(&record)
        runner.finish(execution, into: &record)
        return record
    }

    /// Starts seat `key`'s thread: it waits for the baton, runs `body` (natively if the run was
    /// released first), and leaves.
    private func start(seat key: Int, _ body: @escaping @Sendable () -> Void) {
        threads.enter()
        let table = self.table, threads = self.threads, clocks = self.clocks
        let drivers = program.drivers
        let thread = Thread {
            if key < drivers { clocks.register(key) }
            SchedulePoint.setCurrent(RunSeat(table: table, key: key))
            _ = table.arriveAsDriver(key)
            body()
            if key < drivers { clocks.unregister(key) }
            table.leave(key)
            SchedulePoint.setCurrent(nil)
            threads.leave()
        }
        thread.stackSize = 4 << 20
        thread.start()
    }

    /// Runs the seats until none can go on: `nil` when quiescent; the record of a run that went on
    /// natively (a hand-off that did not arrive, a seat blocked outside the primitives, the
    /// phase's cap reached). When no seat can go on while the phase is not `done`, or the program
    /// has work from outside the run, the loop first gives such work a short grace: a thread
    /// that is no seat (a Swift task, or a backend's thread from before the run, still polling a
    /// queue) may finish it.
    ///
    /// The phase (`name`, for the record) is capped as a stress phase is, at the livelock
    /// factor's hang limits of real time from its start (`PhaseWatch.cap`): seats that keep
    /// scheduling each other (jobs that submit more jobs, a timer that re-arms itself) never make
    /// it quiescent, and reach a point too often for the blocked-seat bound. At the cap the run
    /// goes on natively, where its phases' watches decide: churn beside a program that finishes
    /// passes, not reproducible; a livelock is given up at a native phase's cap.
    private func phase(_ record: inout RunRecord, name: String, done: @escaping () -> Bool) -> RunRecord? {
        let outside = program.steps.contains { $0.operation.makesOutsideWork }
        let watch = runner.watch(execution)
        let turn = table.runUntilQuiescent(blockedLimit: runner.blockedSeatLimit, cap: watch.cap) { [execution, table] in
            (outside || !done()) && Self.outsideProgress(execution, table: table)
        }
        switch turn {
        case .quiescent:
            return nil
        case .blockedOutside(let seat, let since):
            let seats = table.describeSeats(program: program)
            let events = execution.log.events
            table.releaseAll()
            return goOnNatively(&record, after: .blockedSeat(seat, since: since, seats: seats), events: events)
        case .notArrived(let what):
            let events = execution.log.events
            table.releaseAll()
            return goOnNatively(&record, after: .notArrived(what), events: events)
        case .capReached:
            let seats = table.describeSeats(program: program)
            let events = execution.log.events
            table.releaseAll()
            return goOnNatively(&record, after: .capReached(phase: name, cap: watch.cap - watch.started, seats: seats), events: events)
        case .released:
            release(&record)
            return record
        }
    }

    /// Whether work from outside the run (a Swift task, a timer's thread that is no seat) makes
    /// progress within a short grace: the event log moves.
    private static func outsideProgress(_ execution: ProgramExecution, table: SeatTable) -> Bool {
        let seen = execution.log.progress
        let grace = Uptime.now + .milliseconds(100)
        while !grace.hasPassed {
            if execution.log.progress != seen { return true }
            table.pause(.milliseconds(5))
        }
        return execution.log.progress != seen
    }

    /// Nothing can go on, yet drivers (or tasks, after the held sources) are left: the run is
    /// stuck, reported at once with every seat and what it is blocked on.
    private func stuck(_ record: inout RunRecord, heldCompleted: Bool) -> RunRecord {
        var hang = execution.hang(
            .stuck, stuckSteps: table.driverSteps, heldCompleted: heldCompleted,
            limit: runner.hangLimit)
        hang.seats = table.describeSeats(program: program)
        release(&record, events: hang.events)
        record.ending = .hung(hang)
        return record
    }

    /// Releases every seat, and notes for the record why the run may not replay (from `events`,
    /// the log as the run ended: once released, its threads go on natively and may log more) and
    /// what executors did wrong.
    private func release(_ record: inout RunRecord, events: [Event]? = nil) {
        let events = events ?? execution.log.events
        table.releaseAll()
        close(&record, events: events)
    }

    private func close(_ record: inout RunRecord, events: [Event]) {
        record.notReproducible = table.notes + (table.divergence.map { [$0] } ?? [])
        record.decisions = table.decisions
        record.clockRelease = table.clock.releasedAt
        if let event = events.first(where: { !$0.underControl }) {
            record.notReproducible.append("\(event.kind) was logged on thread\(event.thread), not a seat of the run")
        }
        record.executorViolations = table.violations
    }

    /// The run was released before its end (`release` says why): its threads go on natively and
    /// it ends as a stress run does (drivers, phase one, held sources, quiescence), checked all
    /// the same, and marked not reproducible. Each native phase is watched as a stress phase
    /// (`PhaseWatch`): given up after the hang limit without progress, or at its livelock cap,
    /// never after a fixed time, so a backend that is slow but keeps going is not called hung.
    /// After a seat blocked outside the primitives the drivers' phase is measured from that
    /// seat's last point (the block and the native rest share one hang limit without progress),
    /// and a run still hung natively is a hang naming that seat (`Hang.Kind.blockedSeat`), not
    /// marked by the release: the seated part, up to the block, replays exactly, and the block
    /// outlived the release.
    private func goOnNatively(_ record: inout RunRecord, after release: NativeRelease, events: [Event]) -> RunRecord {
        let drivers = runner.watch(execution, started: release.nativeStart(releasedAt: .now))
        let giveUp = drivers.wait { [threads, clocks, execution] in clocks.wait(for: threads, until: $0, log: execution.log) }
        close(&record, events: events)
        if case .notArrived = release { record.notReproducible.insert(release.note, at: 0) }
        if let giveUp {
            let steps = execution.currentStep.withLock { $0.filter { $0 >= 0 } }
            var hang = execution.hang(
                nativeHangKind(after: release, phase: "the drivers' steps"), stuckSteps: steps, heldCompleted: false,
                limit: runner.hangLimit)
            hang.givenUp = giveUp
            hang.driversUsedNoCPU = giveUp.isNoProgress && clocks.watching
            record.ending = .hung(described(hang, after: release))
            return record
        }
        if record.snapshot.isEmpty {
            record.snapshot = runner.waitForPhaseOne(execution)
            execution.completeHeldSources()
        }
        if let hang = runner.waitForQuiescence(execution, hangKind: { nativeHangKind(after: release, phase: $0) }) {
            record.ending = .hung(described(hang, after: release))
            return record
        }
        switch release {
        case .notArrived: break
        case .blockedSeat(let seat, _, _):
            record.notReproducible.insert(release.note, at: 0)
            record.blockedOutsidePrimitives = seat
        case .capReached(let phase, let cap, _):
            record.notReproducible.insert(release.note, at: 0)
            record.cappedSeatedPhase = "\(phase), at \(cap)"
        }
        runner.finish(execution, into: &record)
        return record
    }

    /// The kind of hang of a run released before its end whose `phase` did not finish natively.
    private func nativeHangKind(after release: NativeRelease, phase: String) -> Hang.Kind {
        switch release {
        case .notArrived:
            return .timedOut(phase: phase + ", after the run went on natively")
        case .blockedSeat(let seat, _, _):
            return .blockedSeat("\(seat); released to go on natively, \(phase) still did not finish")
        case .capReached(let seated, let cap, _):
            return .timedOut(phase: phase + ", after the seated \(seated) reached its cap of \(cap) and the run went on natively")
        }
    }

    /// `hang` with the seats as they were when a blocked seat, or the phase's cap, made the run
    /// go on natively.
    private func described(_ hang: Hang, after release: NativeRelease) -> Hang {
        var hang = hang
        switch release {
        case .notArrived: break
        case .blockedSeat(_, _, let seats), .capReached(_, _, let seats): hang.seats = seats
        }
        return hang
    }
}
