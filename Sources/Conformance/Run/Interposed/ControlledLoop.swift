import Foundation
import TaskAPI

/// Runs one program in controlled mode: one real thread, the controlled one, runs the loop that
/// gives the baton to one driver at a time (each on a thread of its own, `DriverThreads.swift`)
/// and hands the executors' jobs over to the backend's own executors one at a time
/// (`Interposition.swift`), in the order `strategy` draws from the program's seed. Then the same
/// checks as under stress.
///
/// Every scheduling point is a driver step (a completion, a registration, a cancel...), the rest
/// of a step parked at a schedule point inside a backend operation (`SchedulePoint`), or a job.
/// A blocking `wait()` is enabled only once its task completed, and no step that may wait for
/// another thread, nor any job, runs while a driver is parked mid-step, so the thread holding
/// the baton never blocks; when nothing is enabled while drivers or tasks remain, the run is
/// stuck: a lost continuation, reported at once instead of after the watchdog's limit.
extension ProgramRunner {
    func runControlled(_ program: Program, strategy: ScheduleStrategy, backend: any TaskBackend) -> RunRecord {
        let scheduler = Scheduler()
        let provider = InterposedExecutorProvider(scheduler: scheduler, base: executors)
        let execution = ProgramExecution(
            program: program, backend: backend,
            executors: provider.makeExecutors(for: program, backend: backend),
            timingSlack: timingSlack)
        let outcome = PlainLocked<ControlledEnding?>(nil)
        let finished = DispatchSemaphore(value: 0)
        let drivers = DriverThreads(execution: execution, hangLimit: hangLimit)
        let thread = Thread { [hangLimit, livelockFactor, timingSlack, progress] in
            scheduler.adoptCallingThread()
            defer { drivers.release() }
            var loop = ControlledLoop(
                execution: execution, scheduler: scheduler, drivers: drivers, strategy: strategy,
                hangLimit: hangLimit, livelockFactor: livelockFactor, slack: timingSlack, progress: progress)
            var result = loop.run()
            result.decisions = loop.strategy.decisions
            result.divergence = loop.strategy.divergence
            outcome.withLock { $0 = result }
            finished.signal()
        }
        thread.stackSize = 4 << 20
        thread.start()
        var record = RunRecord(program: program, mode: .controlled(strategy))
        let giveUp = waitForLoop(finished, execution: execution, drivers: drivers)
        guard giveUp == nil, let result = outcome.withLock({ $0 }) else {
            let stuck = execution.currentStep.withLock { $0.filter { $0 >= 0 } }
            var hang = execution.hang(
                .timedOut(phase: "the controlled run (its one thread is blocked)"),
                stuckSteps: stuck, heldCompleted: false, limit: hangLimit)
            hang.givenUp = giveUp
            hang.driversUsedNoCPU = giveUp?.isNoProgress == true && drivers.clocks.watching
            record.ending = .hung(hang)
            // Given up, and described as it stands: the loop's thread may never come back to
            // release the drivers, and until they are released the run stays installed as the
            // process's schedule controller, so every ScheduleKit primitive of every other test
            // leaves its fast path for good. A second release, by the loop's thread if it returns,
            // does nothing.
            drivers.release()
            return record
        }
        record.notReproducible = scheduler.foreignActivity + (result.divergence.map { [$0] } ?? [])
        record.decisions = result.decisions
        if let event = execution.log.events.first(where: { !$0.underControl }) {
            record.notReproducible.append("\(event.kind) was logged on thread\(event.thread), not under the controlled run's control")
        }
        record.executorViolations = scheduler.violations
        if let blocked = result.blockedJob {
            var hang = execution.hang(.blockedJob(blocked), stuckSteps: result.stuckSteps, heldCompleted: false, limit: hangLimit)
            hang.givenUp = result.givenUp
            record.ending = .hung(hang)
        } else if !result.stuckSteps.isEmpty || !result.quiescent {
            record.ending = .hung(
                execution.hang(
                    .stuck, stuckSteps: result.stuckSteps,
                    heldCompleted: result.stuckSteps.isEmpty, limit: hangLimit))
        } else {
            record.snapshot = result.snapshot
            finish(execution, into: &record)
        }
        return record
    }

    /// How long past its phases' own watches the runner waits for a controlled run's loop (a
    /// step or job under way when a watch gives up, the loop's grace for outside work).
    var controlledRunMargin: Duration { max(.seconds(1), hangLimit / 2) }

    /// Waits for the controlled loop to finish: nil, or why its thread was given up as blocked.
    /// Measured from the run's progress, as the loop's own phases are (`PhaseWatch`; the loop
    /// marks each step and hand-over; a driver thread that used CPU time since the last look is
    /// working, `DriverCPUClocks`): a driver step the loop waits for (a backend call, which in
    /// controlled mode never waits for anything) made no progress for the hang limit, or the run
    /// none for the hang limit and `controlledRunMargin`; or the loop ran past its two phases'
    /// livelock caps and the margin. The loop's own waits (hand-overs, timers, awaits) happen
    /// between steps and end by its phases' watches, which give up first.
    private func waitForLoop(
        _ finished: DispatchSemaphore, execution: ProgramExecution, drivers: DriverThreads
    ) -> PhaseWatch.GiveUp? {
        let started = Uptime.now
        let cap = started + hangLimit * (2 * max(1, livelockFactor)) + controlledRunMargin
        var steps = execution.currentStep.withLock { $0 }
        var since = started
        while true {
            if finished.wait(timeout: (Uptime.now + .milliseconds(20)).dispatchTime) == .success { return nil }
            drivers.clocks.sample(into: execution.log)
            let now = Uptime.now
            let current = execution.currentStep.withLock { $0 }
            if current != steps { (steps, since) = (current, now) }
            let quiet = now - max(execution.log.lastActivity, since)
            if drivers.isRunningStep, quiet > hangLimit { return .noProgress(ran: now - started) }
            if quiet > hangLimit + controlledRunMargin { return .noProgress(ran: now - started) }
            if cap.hasPassed { return .livelock(ran: now - started) }
        }
    }
}

/// How the controlled thread's run ended.
struct ControlledEnding: Sendable {
    /// The controlled thread's number.
    var thread: Int
    /// Tasks completed before the held sources were.
    var snapshot: [Bool]
    /// Drivers' next steps when nothing could run any more (empty: the drivers finished).
    var stuckSteps: [Int]
    /// Every task completed and every body returned.
    var quiescent: Bool
    /// A job handed over to the backend's executor that did not come back before the phase's
    /// watch gave it up, and why it did (`PhaseWatch`).
    var blockedJob: String?
    var givenUp: PhaseWatch.GiveUp?
    /// Exhaustive: the decisions the run made, and why it did not follow its path.
    var decisions: [ScheduleDecision] = []
    var divergence: String?
}

/// The controlled thread's loop: picks and runs one enabled driver step (or rest of a step) or
/// job at a time.
struct ControlledLoop {
    let execution: ProgramExecution
    let scheduler: Scheduler
    let drivers: DriverThreads
    var strategy: StrategyState
    let hangLimit: Duration
    let livelockFactor: Int
    /// For each driver, its steps in program order, and how many it has begun.
    private var driverSteps: [[Int]]
    private var nextStep: [Int]
    /// For each driver, whether it is parked at a schedule point in its latest step.
    private var midStep: [Bool]
    private var introducedJobs: Set<Int> = []
    /// The driver or job picked last: the one that just ran (exhaustive: switching away from it
    /// while it may go on, parked or at its next step, is a preemption).
    private var lastPicked: Int?
    /// Whether anything outside the harness (timers, Swift tasks) may make progress.
    private let outsideWork: Bool
    /// The current phase's watchdog (`PhaseWatch`: given up after the hang limit without
    /// progress, or at its livelock cap), which also bounds every hand-over.
    private var watch: PhaseWatch
    /// A job that did not come back from the backend's executor: the run is given up.
    private var blockedJob: String?

    /// How late a timer or a cancelled await may be: how long the loop waits for them.
    let slack: Duration
    /// Which tasks the loop waits for in phase one.
    let progress: any ProgressModel

    init(
        execution: ProgramExecution, scheduler: Scheduler, drivers: DriverThreads, strategy: ScheduleStrategy,
        hangLimit: Duration, livelockFactor: Int, slack: Duration, progress: any ProgressModel
    ) {
        self.execution = execution
        self.scheduler = scheduler
        self.drivers = drivers
        self.hangLimit = hangLimit
        self.livelockFactor = livelockFactor
        watch = PhaseWatch(log: execution.log, limit: hangLimit, livelockFactor: livelockFactor)
        self.slack = slack
        self.progress = progress
        let program = execution.program
        driverSteps = (0..<program.drivers).map { d in program.steps.indices.filter { program.steps[$0].driver == d } }
        nextStep = Array(repeating: 0, count: program.drivers)
        midStep = Array(repeating: false, count: program.drivers)
        self.strategy = StrategyState(strategy: strategy, seed: program.seed, expectedPoints: 3 * program.steps.count + 3)
        for driver in 0..<program.drivers { self.strategy.introduce(driver) }
        outsideWork = program.steps.contains { $0.operation.makesOutsideWork }
    }

    mutating func run() -> ControlledEnding {
        let thread = ThreadInfo.number
        let program = execution.program
        watch = newWatch()
        // The drivers' steps, interleaved with jobs.
        while nextStep.indices.contains(where: { nextStep[$0] < driverSteps[$0].count || midStep[$0] }) {
            if step() { continue }
            if let blockedJob { return given(up: blockedJob, thread: thread) }
            if (outsideInFlight() || graceForOutsideWork()) && watch.givenUp() == nil {
                pollOutside()
            } else {
                let stuck = nextStep.indices.compactMap { d in nextStep[d] < driverSteps[d].count ? driverSteps[d][nextStep[d]] : nil }
                return ControlledEnding(thread: thread, snapshot: execution.log.completedTasks, stuckSteps: stuck, quiescent: false)
            }
        }
        // Phase one: everything that can run without the held sources.
        // Nothing is enabled any more; if the model still expects a task to complete, only work
        // outside the harness can do it (a timer, or a backend that ignored our executors).
        while true {
            while step() {}
            if let blockedJob { return given(up: blockedJob, thread: thread) }
            let expected = progress.tasksDueInPhaseOne(of: program, events: execution.log.events)
            if execution.log.phaseOneDone(tasks: expected) || watch.givenUp() != nil { break }
            if outsideInFlight() {
                pollOutside()
            } else if !graceForOutsideWork() {
                break
            }
        }
        let snapshot = execution.log.completedTasks
        // Phase two.
        execution.completeHeldSources()
        watch = newWatch()
        while true {
            while step() {}
            if let blockedJob { return given(up: blockedJob, thread: thread) }
            if execution.log.waitForQuiescence(deadline: .now) { break }
            if !(outsideInFlight() || graceForOutsideWork()) || watch.givenUp() != nil { break }
            pollOutside()
        }
        let quiescent = execution.log.waitForQuiescence(deadline: .now)
        return ControlledEnding(thread: thread, snapshot: snapshot, stuckSteps: [], quiescent: quiescent)
    }

    /// The watch of a phase that begins now.
    private func newWatch() -> PhaseWatch {
        PhaseWatch(log: execution.log, limit: hangLimit, livelockFactor: livelockFactor)
    }

    private func given(up job: String, thread: Int) -> ControlledEnding {
        let stuck = nextStep.indices.compactMap { d in
            midStep[d] ? driverSteps[d][nextStep[d] - 1] : nextStep[d] < driverSteps[d].count ? driverSteps[d][nextStep[d]] : nil
        }
        return ControlledEnding(
            thread: thread, snapshot: execution.log.completedTasks, stuckSteps: stuck, quiescent: false,
            blockedJob: job, givenUp: watch.givenUp())
    }

    /// Nothing is enabled, yet the program has work left: unless something outside the harness
    /// (a backend's own thread) makes progress within a short grace period, the run is stuck.
    private func graceForOutsideWork() -> Bool {
        let seen = execution.log.progress
        let grace = Uptime.now + .milliseconds(100)
        while !grace.hasPassed {
            if !scheduler.isIdle || execution.log.progress != seen { return true }
            _ = scheduler.waitForJob(until: .now + .milliseconds(5))
        }
        return !scheduler.isIdle || execution.log.progress != seen
    }

    /// Whether work from outside the harness may still make progress: a timer of the program not
    /// fired yet, within the slack after it was due; a `delay` or `timeout` task pending within
    /// the slack after its deadline; a `runAsync` task, a cancelled await or one of a completed
    /// task, pending within the slack (and a second) after its step began. (Nested waits and probed combinators are
    /// done when their step returns.) Past those, waiting longer finds nothing
    /// the checks would not report: the loop goes on (or calls the run stuck) at once, instead
    /// of at the phase's deadline.
    private func outsideInFlight() -> Bool {
        guard outsideWork else { return false }
        let now = Uptime.now
        if let due = execution.extras.latestPendingTimer, now < due + slack { return true }
        let completed = execution.log.completedTasks
        var finishedAwaits: Set<Int> = []
        var started: [(step: Int, at: Uptime)] = []
        for event in execution.log.events {
            if case .stepStart(let step) = event.kind { started.append((step, Uptime(nanoseconds: event.uptime))) }
            if case .awaited(let step, _, _) = event.kind { finishedAwaits.insert(step) }
        }
        for (step, at) in started {
            let pending = { (t: Int) in t < completed.count && !completed[t] }
            switch execution.program.steps[step].operation.payload.outsideWork {
            case .completes(let t, let within):
                if pending(t), now < at + within + slack { return true }
            case .awaits(let t, let cancelled):
                // An await of a pending task waits for the task, not for outside work.
                if !finishedAwaits.contains(step), cancelled || !pending(t), now < at + slack + .seconds(1) { return true }
            case .none, .timer, .duringStep:
                break
            }
        }
        return false
    }

    /// Waits a little for a timer or a Swift task to hand over a job or complete something.
    private func pollOutside() {
        _ = scheduler.waitForJob(until: .now + .milliseconds(2))
    }

    /// Runs one enabled driver step or hands over one job (a serial executor's: a batch of its
    /// oldest); `false` if none is enabled or a job did not come back.
    private mutating func step() -> Bool {
        guard blockedJob == nil else { return false }
        var keys: [Int] = []
        // A driver parked mid-step may hold what a waiting step or a job would wait for (a
        // delivery under way, a cancellation's handlers): only steps that never wait go meanwhile.
        let parked = midStep.contains(true)
        for driver in nextStep.indices {
            if midStep[driver] {
                keys.append(driver)
            } else if nextStep[driver] < driverSteps[driver].count {
                let index = driverSteps[driver][nextStep[driver]]
                if execution.canRunWithoutBlocking(index), !parked || execution.program.steps[index].operation.neverWaits {
                    keys.append(driver)
                }
            }
        }
        let jobs = parked ? [] : scheduler.enabledJobs()
        let jobKeyBase = execution.program.drivers
        for job in jobs {
            if introducedJobs.insert(job.id).inserted { strategy.introduce(jobKeyBase + job.id) }
            keys.append(jobKeyBase + job.id)
        }
        guard !keys.isEmpty else { return false }
        let key = keys[strategy.pick(keys, current: lastPicked)]
        lastPicked = key
        if key < jobKeyBase {
            if midStep[key] {
                midStep[key] = drivers.resume(key, step: nil)
            } else {
                let index = driverSteps[key][nextStep[key]]
                nextStep[key] += 1
                midStep[key] = drivers.resume(key, step: index)
            }
        } else if let job = scheduler.take(key - jobKeyBase) {
            var batch = [job]
            if let serial = job.serial {
                let more = strategy.draw(scheduler.queuedCount(serial: serial) + 1)
                batch += scheduler.takeOldest(serial: serial, count: more)
            }
            for taken in batch { introducedJobs.remove(taken.id) }
            blockedJob = Interposition.handOver(batch, scheduler: scheduler, watch: watch)
        }
        guard blockedJob == nil else { return false }
        // A driver's step resumed or a hand-over came back: progress of the run's own, whether
        // or not it logged an event (the phase's watch measures from it).
        execution.log.markProgress()
        return true
    }
}
