/// Why a seated run was released before its end, to go on natively (`SeatedRun`).
enum NativeRelease {
    /// A picked hand-off did not arrive within the arrival limit (what it was).
    case notArrived(String)
    /// The seat holding the baton reached no point within `ProgramRunner.blockedSeatLimit`
    /// (`seat` names it and its last point; `seats` describes every seat then).
    case blockedSeat(String, seats: [String])

    /// Why the run is not reproducible, for its record (and the report's not-reproducible line).
    var note: String {
        switch self {
        case .notArrived(let what):
            return what
        case .blockedSeat(let seat, _):
            return "\(seat): blocked outside ScheduleKit's primitives (a lock, semaphore or wait of the backend's own, "
                + "which a paused seat may have held): the harness cannot control that part of the backend, so the seats "
                + "were released and the run went on natively; make that synchronization a ScheduleKit primitive to have it "
                + "controlled (docs/WRITING_A_BACKEND.md, 7a)"
        }
    }
}
