import Foundation
import TaskAPI

/// What the operations of one run keep beside the slots: user handler registrations (C4.2) and
/// the timers armed and not fired yet (`schedule`, `cancel(after:)`), with when each is due.
final class HandlersAndTimers: Sendable {
    private struct State {
        var registrations: [Int: any Disposable] = [:]
        /// Timers not fired yet, with the moment they are due.
        var pendingTimers: [Int: Uptime] = [:]
    }

    private let condition = NSCondition()
    // nonisolated(unsafe): read and written only holding `condition`'s lock (`locked`, and
    // `waitForTimers`, whose wait releases it only while it sleeps).
    private nonisolated(unsafe) var state = State()

    func keep(_ registration: any Disposable, handler: Int) { locked { $0.registrations[handler] = registration } }
    func registration(_ handler: Int) -> (any Disposable)? { locked { $0.registrations[handler] } }
    func timerArmed(step: Int, dueBy: Uptime) { locked { $0.pendingTimers[step] = dueBy } }
    func timerFired(step: Int) { locked { $0.pendingTimers[step] = nil } }
    /// When the last timer not fired yet is due.
    var latestPendingTimer: Uptime? { locked { $0.pendingTimers.values.max() } }

    /// Waits until every timer fired, or `slack` after the last one was due.
    func waitForTimers(slack: Duration) {
        condition.lock()
        defer { condition.unlock() }
        while let due = state.pendingTimers.values.max() {
            let deadline = due + slack
            if deadline.hasPassed { return }
            _ = condition.wait(until: deadline)
        }
    }

    /// Forgets registrations (the end of a run).
    func clear() { locked { $0.registrations = [:] } }

    private func locked<R>(_ body: (inout State) -> R) -> R {
        condition.lock()
        defer { condition.broadcast(); condition.unlock() }
        return body(&state)
    }
}

extension ProgramExecution {
    /// Before a `cancel(after:)`: a handler of the harness's own logs when the token is cancelled.
    func armTimerProbe(on source: any CancellationSource, step: Int, microseconds: Int) {
        let log = self.log, extras = self.extras
        extras.timerArmed(step: step, dueBy: .now + .microseconds(microseconds))
        extras.keep(
            source.register {
                log.append(.timerFired(step: step))
                extras.timerFired(step: step)
            }, handler: -1 - step)
    }
}
