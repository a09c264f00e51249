import Foundation
import TaskAPI

/// The job queue of a controlled run: every executor of the program (an `InterposedExecutor`
/// around the backend's own) queues its jobs here, and the controlled loop hands them over to the
/// backend's executor one at a time (a serial executor's in batches), in the order its strategy
/// picks (`Interposition.swift`).
///
/// Jobs of one serial executor are FIFO (only the oldest is ever enabled); jobs of the default
/// executor (and the counting executors, which forward to it) may go in any order. A job queued
/// from a thread not under control (a backend's timer, a Swift task) is still queued, and makes
/// the run "not reproducible".
final class Scheduler: Sendable {
    struct QueuedJob: Sendable {
        let id: Int
        /// `nil`: the default executor; `n`: serial executor `n`.
        let serial: Int?
        /// The backend's executor that runs it once handed over.
        let target: any AsyncTaskExecutor
        let body: @Sendable () -> Void
    }

    private struct State {
        var jobs: [QueuedJob] = []
        var nextID = 0
        var foreign: [String] = []
        var ownerThread = 0
        /// Per serial executor: jobs handed over so far, the latest hand-over number that
        /// started, and how many of its jobs are running (or held at their gate).
        var handedOver: [Int: Int] = [:]
        var latestStarted: [Int: Int] = [:]
        var inProgress: [Int: Int] = [:]
        /// What the interposition saw an executor do wrong (C7.2, C7.3), in the order seen.
        var violations: [Finding] = []
    }

    private let state = PlainLocked(State())
    /// Signalled whenever a job is queued, for waits on work from outside the harness.
    private let condition = NSCondition()

    /// The calling thread becomes the controlled one.
    func adoptCallingThread() {
        let number = ThreadInfo.number
        ThreadInfo.underControl = true
        state.withLock { $0.ownerThread = number }
    }

    var ownerThread: Int { state.withLock { $0.ownerThread } }

    func enqueue(serial: Int?, target: any AsyncTaskExecutor, _ body: @escaping @Sendable () -> Void) {
        let thread = ThreadInfo.number
        let controlled = ThreadInfo.underControl
        state.withLock { state in
            if state.ownerThread != 0, !controlled, state.foreign.count < 5 {
                state.foreign.append(
                    "a job for \(serial.map { "serial\($0)" } ?? "default") was handed over on thread\(thread), "
                        + "not under the controlled run's control")
            }
            state.jobs.append(QueuedJob(id: state.nextID, serial: serial, target: target, body: body))
            state.nextID += 1
        }
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    /// The jobs that may go now: every default job, the oldest job of each serial executor.
    func enabledJobs() -> [QueuedJob] {
        state.withLock { state in
            var seenSerial: Set<Int> = []
            return state.jobs.filter { job in
                guard let serial = job.serial else { return true }
                return seenSerial.insert(serial).inserted
            }
        }
    }

    /// Removes and returns job `id`.
    func take(_ id: Int) -> QueuedJob? {
        state.withLock { state in
            guard let index = state.jobs.firstIndex(where: { $0.id == id }) else { return nil }
            return state.jobs.remove(at: index)
        }
    }

    /// Jobs still queued for serial executor `serial`.
    func queuedCount(serial: Int) -> Int {
        state.withLock { $0.jobs.filter { $0.serial == serial }.count }
    }

    /// Removes and returns the `count` oldest jobs of serial executor `serial`.
    func takeOldest(serial: Int, count: Int) -> [QueuedJob] {
        state.withLock { state in
            var taken: [QueuedJob] = []
            state.jobs.removeAll { job in
                guard job.serial == serial, taken.count < count else { return false }
                taken.append(job)
                return true
            }
            return taken
        }
    }

    var isIdle: Bool { state.withLock { $0.jobs.isEmpty } }

    /// Why the run is not reproducible, if it is not.
    var foreignActivity: [String] { state.withLock { $0.foreign } }

    func noteForeign(_ what: String) {
        state.withLock { state in if state.foreign.count < 5 { state.foreign.append(what) } }
    }

    /// What the executors did wrong, as findings.
    var violations: [Finding] { state.withLock { $0.violations } }

    func noteViolation(_ finding: Finding) {
        state.withLock { state in if state.violations.count < 5 { state.violations.append(finding) } }
    }

    // MARK: - Serial executors' order (C7.2)

    /// The number of the next job handed over to serial executor `serial` (1, 2, ...).
    func nextHandOver(serial: Int) -> Int {
        state.withLock { state in
            state.handedOver[serial, default: 0] += 1
            return state.handedOver[serial]!
        }
    }

    /// Serial executor `serial` started its job number `number`: FIFO, one at a time (C7.2).
    func serialStarted(_ serial: Int, number: Int) {
        let finding: Finding? = state.withLock { state in
            defer {
                state.inProgress[serial, default: 0] += 1
                state.latestStarted[serial] = max(state.latestStarted[serial] ?? 0, number)
            }
            if let latest = state.latestStarted[serial], latest > number {
                return Finding(
                    .c7_2, "serial executor serial\(serial) started a job before one handed to it earlier (not FIFO)",
                    expected: "its job #\(number) (handed over before #\(latest)) first",
                    observed: "job #\(latest) started before job #\(number)")
            }
            if state.inProgress[serial, default: 0] > 0 {
                return Finding(
                    .c7_2, "serial executor serial\(serial) started its job #\(number) while another of its jobs was still running",
                    expected: "one job at a time", observed: "two jobs at once")
            }
            return nil
        }
        if let finding { noteViolation(finding) }
    }

    func serialEnded(_ serial: Int) {
        state.withLock { $0.inProgress[serial, default: 0] -= 1 }
    }

    /// Waits until a job is queued or `deadline`; true if there is one.
    func waitForJob(until deadline: Uptime) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while isIdle {
            if !condition.wait(until: deadline) { return !isIdle }
        }
        return true
    }
}
