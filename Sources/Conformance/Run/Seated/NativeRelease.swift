/// Why a seated run was released before its end, to go on natively (`SeatedRun`).
enum NativeRelease {
    /// A picked hand-off did not arrive within the arrival limit (what it was).
    case notArrived(String)
    /// The seat holding the baton reached no point within `ProgramRunner.blockedSeatLimit`
    /// (`seat` names it and its last point, `since` is when it reached that point; `seats`
    /// describes every seat then).
    case blockedSeat(String, since: Uptime, seats: [String])
    /// The seated `phase` ran until its `cap` (the livelock factor's hang limits of real time)
    /// without becoming quiescent (`seats` describes every seat then).
    case capReached(phase: String, cap: Duration, seats: [String])

    /// When the run's native drivers' phase is measured from (`PhaseWatch.started`): the blocked
    /// seat's last point, so that the block and the native rest together get one hang limit
    /// without progress, as a stress phase; the release itself after a hand-off that did not
    /// arrive, and at the cap (the whole hang limit after the timing slack it waited, or its own
    /// cap after the seated phase's).
    func nativeStart(releasedAt: Uptime) -> Uptime {
        switch self {
        case .notArrived, .capReached: return releasedAt
        case .blockedSeat(_, let since, _): return since
        }
    }

    /// Why the run is not reproducible, for its record (and the report's not-reproducible line).
    var note: String {
        switch self {
        case .notArrived(let what):
            return what
        case .blockedSeat(let seat, _, _):
            return "\(seat): blocked outside ScheduleKit's primitives (a lock, semaphore or wait of the backend's own, "
                + "which a paused seat may have held): the harness cannot control that part of the backend, so the seats "
                + "were released and the run went on natively; make that synchronization a ScheduleKit primitive to have it "
                + "controlled (docs/WRITING_A_BACKEND.md, 7a)"
        case .capReached(let phase, let cap, _):
            return "the seated \(phase) reached its cap of \(cap) (the hang limit times the livelock factor) without becoming "
                + "quiescent: its seats kept scheduling more work (jobs that submit jobs, a timer that re-arms itself) or threads "
                + "outside the run kept making progress, so the seats were released and the run went on natively"
        }
    }
}
