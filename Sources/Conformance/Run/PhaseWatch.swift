/// The watchdog of one phase of a run that waits on the backend natively (a stress run's three
/// phases; a seated run's once it went on natively; the interposed controlled loop's two, and
/// each job it hands over to the backend's executor): the phase is given up when the run made no
/// progress (no new event in its log, no counted await or call, no step's mark, no driver thread
/// that used CPU time, `DriverCPUClocks`: `EventLog.lastActivity`) for the hang limit, not when
/// it has run for the hang limit; and,
/// so that a livelock (events forever, never done) still ends, once it ran
/// `livelockFactor` hang limits in all (`ConformanceConfiguration.livelockFactor`, 4 by default).
///
/// Measured from the last progress, a correct backend that is slow but keeps going (its jobs a
/// few milliseconds each, or starved in a crowded test process under the thread sanitizer) is
/// not called hung, while a backend that truly hangs is still given up about one hang limit
/// after its last event, as before.
struct PhaseWatch {
    /// How the watched phase ended when it was given up.
    enum GiveUp: Sendable, Equatable {
        /// No progress for the hang limit; `ran`: how long the phase had run.
        case noProgress(ran: Duration)
        /// Progress all along, but not finished within the livelock factor's hang limits (`ran`).
        case livelock(ran: Duration)

        /// Given up for no progress (not at the cap).
        var isNoProgress: Bool {
            switch self {
            case .noProgress: return true
            case .livelock: return false
            }
        }

        /// How long the phase ran before it was given up.
        var ran: Duration {
            switch self {
            case .noProgress(let ran), .livelock(let ran): return ran
            }
        }
    }

    let log: EventLog
    let limit: Duration
    /// When the phase began: progress before it does not count for it.
    let started: Uptime
    /// When the phase is given up even if it makes progress.
    let cap: Uptime

    /// `livelockFactor`: how many hang limits the phase may run in all (1 at the least: a
    /// smaller one counts as 1; `ConformanceConfiguration.livelockFactor` reports it).
    init(log: EventLog, limit: Duration, livelockFactor: Int, started: Uptime = .now) {
        self.log = log
        self.limit = limit
        self.started = started
        cap = started + limit * max(1, livelockFactor)
    }

    /// The moment the phase is given up unless it makes progress first: one hang limit after
    /// its last progress (or its start), the cap at the latest.
    var deadline: Uptime {
        min(max(log.lastActivity, started) + limit, cap)
    }

    /// Whether the phase is to be given up now, and why; nil while it may go on.
    func givenUp() -> GiveUp? {
        let now = Uptime.now
        if max(log.lastActivity, started) + limit <= now { return .noProgress(ran: now - started) }
        if cap <= now { return .livelock(ran: now - started) }
        return nil
    }

    /// Waits with `wait` (whether the phase finished by the deadline it is given) until the phase
    /// finished (nil) or is given up (why). Each wait ends at the current `deadline`; one that ends
    /// unfinished after progress came meanwhile is followed by another.
    func wait(_ wait: (Uptime) -> Bool) -> GiveUp? {
        while true {
            if wait(deadline) { return nil }
            if let giveUp = givenUp() { return giveUp }
        }
    }
}
