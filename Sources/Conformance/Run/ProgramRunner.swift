import Foundation
import TaskAPI

/// The one question a run asks of the contract: which tasks may complete before the held
/// sources do, given what happened so far. The checks' model answers it (`Oracle`); the run
/// only waits for those tasks.
protocol ProgressModel: Sendable {
    /// The tasks of `program` the model expects to complete in phase one, given `events`.
    func tasksDueInPhaseOne(of program: Program, events: [Event]) -> [Int]
}

/// Runs one program in two phases and records what happens (`RunRecord`); judges nothing.
///
/// Phase one: the drivers run every step; then the runner waits for every task the progress
/// model says can complete without the held sources, and snapshots which tasks completed. Phase
/// two: it completes the held sources and waits until everything completed and every body and
/// await returned. Then it gives the timers their slack, drops every reference and records what
/// bodies' captures and tasks stay alive.
struct ProgramRunner {
    /// The backend of each program run: a new one from a factory (`Conformance.check(makeBackend:)`),
    /// or the same instance every time (`Conformance.check(_:)`).
    let makeBackend: @Sendable () -> any TaskBackend
    let executors: any ExecutorProvider
    /// How long a phase that waits on the backend natively may go without progress before the
    /// run is given up (`PhaseWatch`), and so how long a controlled run's step may take.
    var hangLimit: Duration
    /// How many hang limits such a phase may run in all, progress or not, before it is given up
    /// as a livelock (`ConformanceConfiguration.livelockFactor`).
    let livelockFactor: Int
    /// How long freed closures and tasks may take to be released (C8.1, C8.2).
    let leakLimit: Duration
    /// How late a timer or a cancelled await may be: how long the run waits for them.
    let timingSlack: Duration
    let progress: any ProgressModel

    func run(_ program: Program, mode: ScheduleMode = .stress) -> RunRecord {
        let backend = makeBackend()
        if case .controlled(let strategy) = mode.mode(forProgram: 0) {
            return backend.isScheduleInstrumented
                ? runSeated(program, strategy: strategy, backend: backend)
                : runControlled(program, strategy: strategy, backend: backend)
        }
        let execution = ProgramExecution(
            program: program, backend: backend, executors: executors.makeExecutors(for: program, backend: backend),
            timingSlack: timingSlack, leakLimit: leakLimit)
        var record = RunRecord(program: program, mode: .stress)
        let clocks = DriverCPUClocks(drivers: program.drivers, hangLimit: hangLimit)
        if let giveUp = runDrivers(execution, clocks: clocks) {
            let stuck = execution.currentStep.withLock { $0.filter { $0 >= 0 } }
            var hang = execution.hang(
                .timedOut(phase: "the drivers' steps"), stuckSteps: stuck, heldCompleted: false, limit: hangLimit)
            hang.givenUp = giveUp
            hang.driversUsedNoCPU = giveUp.isNoProgress && clocks.watching
            record.ending = .hung(hang)
            return record
        }
        record.snapshot = waitForPhaseOne(execution)
        execution.completeHeldSources()
        if let hang = waitForQuiescence(execution, hangKind: { .timedOut(phase: $0) }) {
            record.ending = .hung(hang)
            return record
        }
        finish(execution, into: &record)
        return record
    }

    /// Each driver on a thread of its own; nil once they all finished, or why the phase was given
    /// up (`PhaseWatch`: no progress for the hang limit, or still going at its cap).
    /// A driver thread that keeps using CPU time is working, not blocked: progress (`clocks`).
    private func runDrivers(_ execution: ProgramExecution, clocks: DriverCPUClocks) -> PhaseWatch.GiveUp? {
        let group = DispatchGroup()
        let watch = self.watch(execution)
        for driver in 0..<execution.program.drivers {
            group.enter()
            let thread = Thread {
                clocks.register(driver)
                execution.runDriver(driver)
                clocks.unregister(driver)
                group.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        return watch.wait { clocks.wait(for: group, until: $0, log: execution.log) }
    }

    /// Asks the progress model again after every bit of progress until every task it expects
    /// to complete without the held sources has (or the phase's watch gives it up: no progress
    /// for the hang limit, or its cap); what completed by then.
    func waitForPhaseOne(_ execution: ProgramExecution) -> [Bool] {
        let program = execution.program
        let watch = self.watch(execution)
        // Cancelled awaits get the timing slack, not the phase's limit: one that outlives it
        // is a C4.7 finding of the timing checks, not a stall.
        let awaitsDeadline = Uptime.now + timingSlack
        while true {
            let seen = execution.log.progress
            let expected = progress.tasksDueInPhaseOne(of: program, events: execution.log.events)
            if execution.log.phaseOneDone(tasks: expected, ignoringAwaits: awaitsDeadline.hasPassed) { break }
            let deadline = awaitsDeadline.hasPassed ? watch.deadline : min(watch.deadline, awaitsDeadline)
            if !execution.log.waitForProgress(after: seen, deadline: deadline), watch.givenUp() != nil { break }
        }
        return execution.log.completedTasks
    }

    /// Phase two: waits until every task completed and every body and await returned; nil then,
    /// or, if the phase's watch gave it up, the hang (of the kind `hangKind` makes of the phase's
    /// name) with what still ran.
    func waitForQuiescence(_ execution: ProgramExecution, hangKind: (String) -> Hang.Kind) -> Hang? {
        guard let giveUp = watch(execution).wait({ execution.log.waitForQuiescence(deadline: $0) }) else { return nil }
        var hang = execution.hang(
            hangKind("completion of every task, body and await"), stuckSteps: [], heldCompleted: true, limit: hangLimit)
        hang.givenUp = giveUp
        hang.running = execution.log.runningSummary
        hang.awaitsNotResumed = execution.log.awaitsNotResumed
        return hang
    }

    /// The watchdog of one phase of `execution`'s run, begun at `started` (`PhaseWatch`): given up
    /// after the hang limit without progress, or at its livelock cap. Every phase that waits on
    /// the backend natively has one: a stress run's three, and a controlled run's that go on
    /// natively or wait for a job handed over.
    func watch(_ execution: ProgramExecution, started: Uptime = .now) -> PhaseWatch {
        PhaseWatch(log: execution.log, limit: hangLimit, livelockFactor: livelockFactor, started: started)
    }

    /// Once a run is quiescent: its events, the timers' slack, and what stays alive (C8.1, C8.2).
    func finish(_ execution: ProgramExecution, into record: inout RunRecord) {
        record.events = execution.log.events
        execution.extras.waitForTimers(slack: timingSlack)
        record.timedEvents = execution.log.events
        // C8.1 first, while the tasks are still referenced: a completed task must not keep them.
        let probes = execution.probes.withLock { $0 }
        record.probes = probes.map(\.what)
        record.liveProbes = pollUntilReleased(probes.map(\.reference)).map { probes[$0].what }
        execution.slots.clear()
        let tasks = execution.tasks.withLock { $0 }
        record.tasks = tasks.map(\.id)
        record.liveTasks = pollUntilReleased(tasks.map(\.reference)).map { tasks[$0].id }
        execution.extras.clear()
        let objects = execution.objects.withLock { $0 }
        record.objects = objects.map(\.what)
        record.liveObjects = pollUntilReleased(objects.map(\.reference)).map { objects[$0].what }
    }

    /// Waits until every reference is nil or the leak limit passes (executors release a job's
    /// closure just after it returns); the indices still alive.
    private func pollUntilReleased(_ references: [WeakReference]) -> [Int] {
        let deadline = Uptime.now + leakLimit
        var spins = 0
        while references.contains(where: { $0.object != nil }), !deadline.hasPassed {
            spins += 1
            if spins < 100 { sched_yield() } else { usleep(200) }
        }
        return references.indices.filter { references[$0].object != nil }
    }
}
