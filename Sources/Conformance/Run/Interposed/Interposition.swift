import Foundation
import TaskAPI

/// Controlled mode drives the backend's own executors (issue 10, point 3): each executor a
/// program uses is wrapped in an `InterposedExecutor`, which queues the jobs it is given in the
/// `Scheduler`. When the controlled loop picks a job, `Interposition.handOver` submits it to the
/// backend's real executor and waits until the executor ran it and let go of it; the job runs on
/// the executor's own thread, as it would without the harness. One thing runs at a time, so the
/// same seed is the same schedule, and a bug of the backend's default or serial executors (a job
/// dropped, run twice, run out of order) shows, and replays, in controlled mode too.
///
/// A serial executor's jobs go over in a batch (its 1...n oldest, drawn from the seed): the first
/// is held at a gate once the executor starts it, until the rest are queued behind it, so the
/// executor really has a backlog to keep in order. The gate also watches the order and overlap of
/// the jobs it sees start (C7.2; an overlap shows only if the second job starts while the first
/// is held or running, which depends on the executor's timing), and every hand-over counts its
/// runs (C7.3): these are findings of their own, whatever the jobs were for.
enum Interposition {
    /// How long an executor may keep a job's closure after running it before the loop goes on
    /// without waiting for its release (a second run after that is work from outside control).
    static let releaseGrace: Duration = .milliseconds(500)

    /// Hands `jobs` (one default job, or a batch of one serial executor's oldest) over to the
    /// backend's executors and waits until each ran and was released. `nil`: done; otherwise what
    /// did not come back before `watch` gave the phase up (the hang limit without progress, or
    /// its livelock cap: a slow executor whose jobs keep the run going is waited for).
    static func handOver(_ jobs: [Scheduler.QueuedJob], scheduler: Scheduler, watch: PhaseWatch) -> String? {
        var handoffs: [InterposedJob] = []
        let batch = jobs.count > 1
        for (index, job) in jobs.enumerated() {
            let number = job.serial.map { scheduler.nextHandOver(serial: $0) } ?? 0
            let handoff = InterposedJob(serial: job.serial, number: number, gated: batch && index == 0)
            handoffs.append(handoff)
            submit(job, handoff: handoff, scheduler: scheduler)
            // The first of a batch: the executor starts it (and it waits at its gate) before the
            // rest are queued behind it.
            if batch, index == 0, !handoff.waitStarted(watch) {
                handoff.open()
                return "\(handoff.executorName)'s job #\(number) never started"
            }
        }
        handoffs.first?.open()
        for handoff in handoffs {
            guard handoff.waitDone(watch, scheduler: scheduler) else {
                return "\(handoff.executorName)'s job\(handoff.number > 0 ? " #\(handoff.number)" : "") "
                    + (handoff.hasRun ? "never returned" : "never ran")
            }
        }
        return nil
    }

    private static func submit(_ job: Scheduler.QueuedJob, handoff: InterposedJob, scheduler: Scheduler) {
        let ticket = InterposedJobTicket(handoff: handoff, scheduler: scheduler, body: job.body)
        job.target.execute { ticket.run() }
    }
}

/// One job handed over to a backend's executor: whether the executor started it, how often it
/// ran it, and whether it released it.
final class InterposedJob: @unchecked Sendable {
    // @unchecked Sendable: every `var` is only touched holding `condition`.
    let serial: Int?
    /// Its number among the jobs handed to its serial executor (0 for the default executor).
    let number: Int
    private let condition = NSCondition()
    private var gateOpen: Bool
    private var started = false
    private var runs = 0
    private var running = 0
    private var released = false
    /// The loop went on: a run from now on is not under control.
    private var closed = false
    private var lastEnd = Uptime(nanoseconds: 0)

    init(serial: Int?, number: Int, gated: Bool) {
        self.serial = serial
        self.number = number
        gateOpen = !gated
    }

    var executorName: String { serial.map { "serial executor serial\($0)" } ?? "the default executor" }
    var hasRun: Bool { locked { $0.runs > 0 } }

    /// The executor started the job: waits at the gate (never on a thread under control: an
    /// executor that runs jobs inside `execute` runs them on the controlled thread). `false`:
    /// the controlled loop has gone on without this job.
    func arrive() -> Bool {
        let controlled = ThreadInfo.underControl
        condition.lock()
        defer { condition.unlock() }
        started = true
        condition.broadcast()
        while !gateOpen, !controlled, !closed { condition.wait() }
        guard !closed else { return false }
        runs += 1
        running += 1
        return true
    }

    func runEnded() {
        locked {
            $0.running -= 1
            $0.lastEnd = .now
        }
    }

    func noteReleased() { locked { $0.released = true } }

    func open() { locked { $0.gateOpen = true } }

    /// Waits until the executor started the job; `false`: not before `watch` gave the phase up.
    /// (`watch` reads the run's event log, whose lock is taken last, under no other.)
    func waitStarted(_ watch: PhaseWatch) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !started, !released {
            if !condition.wait(until: watch.deadline), watch.givenUp() != nil { return started || released }
        }
        return true
    }

    /// Waits until the executor released the job (or ran it and kept it for `releaseGrace`),
    /// then records a job dropped or run twice (C7.3). `false`: not done before `watch` gave the
    /// phase up.
    func waitDone(_ watch: PhaseWatch, scheduler: Scheduler) -> Bool {
        condition.lock()
        var done = false
        var kept = false
        while true {
            if released, running == 0 { done = true; break }
            let ranAndKept = runs > 0 && running == 0
            let limit = ranAndKept ? min(watch.deadline, lastEnd + Interposition.releaseGrace) : watch.deadline
            guard !condition.wait(until: limit), limit.hasPassed else { continue }
            let givenUp = watch.givenUp() != nil
            if released, running == 0 {
                done = true
            } else if runs > 0, running == 0, givenUp || (lastEnd + Interposition.releaseGrace).hasPassed {
                done = true
                kept = true
            } else if !givenUp {
                continue
            }
            break
        }
        closed = true
        let runs = self.runs
        condition.broadcast()
        condition.unlock()
        if kept {
            scheduler.noteForeign("\(executorName) kept a job's closure after running it: a later run would be outside control")
        }
        if done, runs != 1 {
            scheduler.noteViolation(
                Finding(
                    .c7_3, runs == 0 ? "\(executorName) let go of a job without running it" : "\(executorName) ran a job \(runs) times",
                    expected: "every job handed to an executor runs exactly once", observed: runs == 0 ? "dropped" : "ran \(runs) times"))
        }
        return done
    }

    private func locked<R>(_ body: (InterposedJob) -> R) -> R {
        condition.lock()
        defer { condition.broadcast(); condition.unlock() }
        return body(self)
    }
}

/// What the backend's executor gets: runs the job under control, and tells the hand-over when
/// the executor released it.
final class InterposedJobTicket: Sendable {
    let handoff: InterposedJob
    let scheduler: Scheduler
    let body: @Sendable () -> Void

    init(handoff: InterposedJob, scheduler: Scheduler, body: @escaping @Sendable () -> Void) {
        self.handoff = handoff
        self.scheduler = scheduler
        self.body = body
    }

    deinit { handoff.noteReleased() }

    func run() {
        if let serial = handoff.serial { scheduler.serialStarted(serial, number: handoff.number) }
        defer { if let serial = handoff.serial { scheduler.serialEnded(serial) } }
        let outer = ThreadInfo.underControl
        guard handoff.arrive() else {
            scheduler.noteForeign("\(handoff.executorName) ran a job after the controlled run had gone on without it")
            ThreadInfo.underControl = false
            body()
            ThreadInfo.underControl = outer
            return
        }
        ThreadInfo.underControl = true
        body()
        ThreadInfo.underControl = outer
        handoff.runEnded()
    }
}

/// An executor of a controlled run: queues its jobs in the scheduler, which hands them over to
/// `target`, the backend's executor.
final class InterposedExecutor: AsyncTaskExecutor {
    private let scheduler: Scheduler
    private let serial: Int?
    private let target: any AsyncTaskExecutor

    init(scheduler: Scheduler, serial: Int?, target: any AsyncTaskExecutor) {
        self.scheduler = scheduler
        self.serial = serial
        self.target = target
    }

    func execute(_ job: @escaping @Sendable () -> Void) {
        scheduler.enqueue(serial: serial, target: target, job)
    }

    /// The backend's executor's answer: a handed-over job runs inside one of its jobs (C9.7).
    var isCurrent: Bool { target.isCurrent }
}

/// The executors of a controlled run: those of `base` (the backend's own, by default), each
/// default and serial one interposed; counting executors forward to the interposed default one;
/// the inline executor is the backend's (it runs jobs on the calling thread, already under control).
struct InterposedExecutorProvider: ExecutorProvider {
    let scheduler: Scheduler
    let base: any ExecutorProvider

    func makeExecutors(for program: Program, backend: any TaskBackend) -> ProgramExecutors {
        let real = base.makeExecutors(for: program, backend: backend)
        let defaultExecutor = InterposedExecutor(scheduler: scheduler, serial: nil, target: real.defaultExecutor)
        return ProgramExecutors(
            defaultExecutor: defaultExecutor,
            inlineExecutor: real.inlineExecutor,
            serial: real.serial.enumerated().map { InterposedExecutor(scheduler: scheduler, serial: $0.offset, target: $0.element) },
            counting: (0..<program.countingExecutors).map { CountingExecutor(id: $0, target: defaultExecutor) }
        )
    }
}
