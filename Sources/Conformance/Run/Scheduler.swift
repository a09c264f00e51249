import Foundation
import TaskAPI

/// The job queue of a controlled run: every executor of the program hands its jobs here, and
/// the controlled thread runs them one at a time, in the order its strategy picks.
///
/// Jobs of one serial executor are FIFO (only the oldest is ever enabled); jobs of the default
/// executor (and the counting executors, which forward to it) may run in any order. A job
/// handed over from a thread other than the controlled one (a backend's own thread or timer)
/// is still queued, and makes the run "not reproducible".
final class Scheduler: Sendable {
    struct Job: Sendable {
        let id: Int
        /// `nil`: the default executor; `n`: serial executor `n`.
        let serial: Int?
        let body: @Sendable () -> Void
    }

    private struct State {
        var jobs: [Job] = []
        var nextID = 0
        var foreign: [String] = []
        var ownerThread = 0
    }

    private let state = Locked(State())
    /// Signalled whenever a job is queued, for waits on work from outside the harness.
    private let condition = NSCondition()

    /// The calling thread becomes the controlled one.
    func adoptCallingThread() {
        let number = ThreadInfo.number
        state.withLock { $0.ownerThread = number }
    }

    func enqueue(serial: Int?, _ body: @escaping @Sendable () -> Void) {
        let thread = ThreadInfo.number
        state.withLock { state in
            if state.ownerThread != 0, thread != state.ownerThread, state.foreign.count < 5 {
                state.foreign.append("a job for \(serial.map { "serial\($0)" } ?? "default") was handed over on thread\(thread), "
                                     + "not the controlled thread")
            }
            state.jobs.append(Job(id: state.nextID, serial: serial, body: body))
            state.nextID += 1
        }
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    /// The jobs that may run now: every default job, the oldest job of each serial executor.
    func enabledJobs() -> [Job] {
        state.withLock { state in
            var seenSerial: Set<Int> = []
            return state.jobs.filter { job in
                guard let serial = job.serial else { return true }
                return seenSerial.insert(serial).inserted
            }
        }
    }

    /// Removes and returns job `id`.
    func take(_ id: Int) -> Job? {
        state.withLock { state in
            guard let index = state.jobs.firstIndex(where: { $0.id == id }) else { return nil }
            return state.jobs.remove(at: index)
        }
    }

    var isIdle: Bool { state.withLock { $0.jobs.isEmpty } }

    /// Why the run is not reproducible, if it is not.
    var foreignActivity: [String] { state.withLock { $0.foreign } }

    func noteForeign(_ what: String) {
        state.withLock { state in if state.foreign.count < 5 { state.foreign.append(what) } }
    }

    /// Waits until a job is queued or `deadline`; true if there is one.
    func waitForJob(until deadline: Date) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while isIdle {
            if !condition.wait(until: deadline) { return !isIdle }
        }
        return true
    }
}

/// An executor of a controlled run: queues its jobs in the scheduler.
final class ControlledExecutor: Executor {
    private let scheduler: Scheduler
    private let serial: Int?

    init(scheduler: Scheduler, serial: Int?) {
        self.scheduler = scheduler
        self.serial = serial
    }

    func execute(_ job: @escaping @Sendable () -> Void) {
        scheduler.enqueue(serial: serial, job)
    }
}

/// The executors of a controlled run: a harness default executor (parallel: any queued job may
/// go next), harness serial executors, counting executors forwarding to the harness default
/// one, and the backend's inline executor (it runs jobs on the calling thread, the controlled
/// one, so it needs no control).
struct ControlledExecutorProvider: ExecutorProvider {
    let scheduler: Scheduler

    func makeExecutors(for program: Program, backend: any TaskBackend) -> ProgramExecutors {
        let defaultExecutor = ControlledExecutor(scheduler: scheduler, serial: nil)
        return ProgramExecutors(
            defaultExecutor: defaultExecutor,
            inlineExecutor: backend.inlineExecutor,
            serial: (0..<program.serialExecutors).map { ControlledExecutor(scheduler: scheduler, serial: $0) },
            counting: (0..<program.countingExecutors).map { CountingExecutor(id: $0, target: defaultExecutor) }
        )
    }
}
