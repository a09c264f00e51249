import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The CPU clocks of a run's driver threads, for the watchdog (`PhaseWatch`, the controlled
/// runner's wait for its loop). A driver step that logs nothing for a while may be working (a
/// chain of hundreds of maps on the inline executor, each registration and each link a call into
/// the backend, slowed down by the thread sanitizer or a crowded process) or blocked (a deadlock,
/// a lost wake-up). A blocked thread uses no CPU time; a driver thread whose CPU time advanced
/// since the watchdog's last look is working, and that is progress, as an event is
/// (`sample(into:)` marks it in the log). A driver that keeps using CPU time without its step ever
/// ending (spinning inside the backend) is a livelock, given up at the phase's cap.
///
/// Where the platform has no per-thread CPU clock (`pthread_getcpuclockid`: Linux has it), no
/// clock is registered and only events count, as before.
final class DriverCPUClocks: Sendable {
    private struct State {
        /// Each driver's thread's CPU clock, once the thread registered it.
        var clocks: [CPUClock?]
        /// Each driver's CPU time at the last sample.
        var seen: [Duration?]
        var sampled: Uptime = .now
    }

    private let state: PlainLocked<State>
    /// How often the watchdog reads the clocks: an eighth of the hang limit (a thread that stops
    /// working is given up at most this much later than one hang limit after its last work),
    /// between 10 ms and 250 ms.
    let interval: Duration

    init(drivers: Int, hangLimit: Duration) {
        state = PlainLocked(State(clocks: Array(repeating: nil, count: drivers), seen: Array(repeating: nil, count: drivers)))
        interval = min(max(hangLimit / 8, .milliseconds(10)), .milliseconds(250))
    }

    /// Whether a driver thread's clock is read (the platform has them, and a driver started):
    /// then a phase given up without progress had no driver thread using CPU time.
    var watching: Bool {
        state.withLock { $0.clocks.contains { $0 != nil } }
    }

    /// Called on driver `driver`'s own thread, before its first step: the watchdog reads that
    /// thread's CPU clock from now on.
    func register(_ driver: Int) {
        guard let clock = CPUClock.ofCallingThread() else { return }
        state.withLock { state in
            precondition(state.clocks.indices.contains(driver), "a clock registered for driver \(driver) of \(state.clocks.count)")
            state.clocks[driver] = clock
            state.seen[driver] = clock.read()
        }
    }

    /// Called on driver `driver`'s own thread once it ran its last step: its clock is read no
    /// more (a thread that ended reads nothing, and its id may come back as another thread's).
    func unregister(_ driver: Int) {
        state.withLock { state in
            state.clocks[driver] = nil
            state.seen[driver] = nil
        }
    }

    /// Waits for `drivers` (the group of the drivers' threads) until `deadline`, an `interval` at
    /// a time, and reads the clocks after each (`sample(into:)`): `true` once the drivers are
    /// done, `false` at the deadline (for `PhaseWatch.wait`, which then asks whether progress
    /// came meanwhile).
    func wait(for drivers: DispatchGroup, until deadline: Uptime, log: EventLog) -> Bool {
        while true {
            if drivers.wait(timeout: min(deadline, .now + interval).dispatchTime) == .success { return true }
            sample(into: log)
            if deadline.hasPassed { return false }
        }
    }

    /// Reads every registered driver's CPU clock, at most once an `interval`: if one advanced
    /// since the last read, the run made progress (`EventLog.markProgress`). A thread that ended
    /// reads nothing and counts as not working.
    func sample(into log: EventLog) {
        let working = state.withLock { state -> Bool in
            let now = Uptime.now
            guard now >= state.sampled + interval else { return false }
            state.sampled = now
            var advanced = false
            for driver in state.clocks.indices {
                guard let time = state.clocks[driver]?.read() else { continue }
                if let seen = state.seen[driver], time > seen { advanced = true }
                state.seen[driver] = time
            }
            return advanced
        }
        if working { log.markProgress() }
    }
}

/// One thread's CPU clock, readable from any thread while the thread lives.
private struct CPUClock: Sendable {
    #if canImport(Glibc)
    let id: clockid_t

    /// The calling thread's CPU clock.
    static func ofCallingThread() -> CPUClock? {
        var id = clockid_t()
        guard pthread_getcpuclockid(pthread_self(), &id) == 0 else { return nil }
        return CPUClock(id: id)
    }

    /// The CPU time the thread used so far; nil once it ended.
    func read() -> Duration? {
        var time = timespec()
        guard clock_gettime(id, &time) == 0 else { return nil }
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
    #else
    /// No per-thread CPU clock of another thread here: none.
    static func ofCallingThread() -> CPUClock? { nil }
    func read() -> Duration? { nil }
    #endif
}
