/// Where a kit task is, in three bytes: they share a word with the sanitizer edge and the lock.
struct KitState {
    enum Phase: UInt8 {
        case pending, running
        /// Completed, and every continuation handed over.
        case completed
        /// Completed, and a delivery is handing continuations over: a registration is stored
        /// behind them and that delivery takes it (C2.4).
        case delivering
    }

    /// How the task completed; `.none` while it has not.
    enum Ending: UInt8 { case none, success, failure, cancelled }

    var phase = Phase.pending
    var ending = Ending.none
    /// The task holds an inline `whenComplete`'s body (`SourceTask`), not yet handed over.
    var holdsBody = false

    var isCompleted: Bool { phase == .completed || phase == .delivering }
}
