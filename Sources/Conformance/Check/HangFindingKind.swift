/// What a hang diagnosis (`HangDiagnosis`) can find, ranked. A user reads a hang's first finding
/// as its cause (it is the failure's rule), so what the run observed directly comes before what
/// the diagnosis inferred from it, and among the direct findings the more basic fault first: one
/// that can stop the others, never one they can cause.
enum HangFindingKind: CaseIterable {
    /// A task completed, and a continuation on it (the harness's inline observer, or a hosted
    /// call's inline continuation) never ran (C2.1). First: a backend may build its timers, its
    /// wake-ups and its hand-overs on continuations, so a lost one stops them too.
    case lostContinuation
    /// A timer that never fired: a delay, timeout or backing-off retry still pending long after
    /// its deadline, its token (if any) not cancelled by anything (C5.4). Whatever waits on its
    /// task (a waiter, a body awaiting it, a continuation) hangs because of it.
    case overdueTimer
    /// A waiter not woken although its condition holds: a `wait()` on a task that completed
    /// (C6.3), a work group's wait with every joined task completed (C9.11).
    case waiterNotWoken
    /// A `wait(timeout:)` that never returned, long past its deadline (C6.2).
    case timedWaitNeverReturned
    /// A released source's task still pending after the release returned: it must have failed
    /// `abandoned` (C8.3).
    case releasedSourcePending
    /// A body that started and never returned (C2.1): direct, but it says where, not why (it may
    /// await a task a finding above explains); it explains everything downstream of it.
    case bodyNeverReturned
    /// A driver that never returned from a call that does not wait (C2.1): where, not why.
    case driverNeverReturned
    /// Inferred: a task that never completed although every step and task it depends on did
    /// (C2.1; C8.3 for a released source's). It names the direct finding about that task, if any.
    case taskNeverCompleted
    /// Inferred, and told only when nothing else is: a job or a continuation handed to an
    /// executor that never ran (C2.1, C7.3); it may only be queued behind the hang.
    case jobNeverRan

    /// The place in the diagnosis's order (lower first).
    var rank: Int {
        switch self {
        case .lostContinuation: 0
        case .overdueTimer: 1
        case .waiterNotWoken: 2
        case .timedWaitNeverReturned: 3
        case .releasedSourcePending: 4
        case .bodyNeverReturned: 5
        case .driverNeverReturned: 6
        case .taskNeverCompleted: 7
        case .jobNeverRan: 8
        }
    }

    /// Observed by the run, rather than inferred from what it did not see.
    var isDirect: Bool {
        switch self {
        case .lostContinuation, .overdueTimer, .waiterNotWoken, .timedWaitNeverReturned, .releasedSourcePending,
            .bodyNeverReturned, .driverNeverReturned:
            true
        case .taskNeverCompleted, .jobNeverRan: false
        }
    }

    /// What it is, as an explained finding names it.
    var name: String {
        switch self {
        case .lostContinuation: "a lost continuation"
        case .overdueTimer: "a timer that never fired"
        case .waiterNotWoken: "a waiter not woken"
        case .timedWaitNeverReturned: "a wait(timeout:) that never returned"
        case .releasedSourcePending: "a released source's task still pending"
        case .bodyNeverReturned: "a body that never returned"
        case .driverNeverReturned: "a driver that never returned"
        case .taskNeverCompleted: "a task that never completed"
        case .jobNeverRan: "a job that never ran"
        }
    }

    /// What the contract expects, for the finding's `expected`.
    var expected: String {
        switch self {
        case .lostContinuation: "every continuation registered on a task runs once it completes"
        case .overdueTimer: "a timer fires once its delay elapsed, and completes its task"
        case .waiterNotWoken: "a waiter wakes once what it waits for holds"
        case .timedWaitNeverReturned: "wait(timeout:) returns by its deadline"
        case .releasedSourcePending: "a task whose source is released pending fails abandoned"
        case .bodyNeverReturned: "a body returns, and its task completes"
        case .driverNeverReturned: "a call that does not wait returns"
        case .taskNeverCompleted: "a task completes once everything it depends on did"
        case .jobNeverRan: "a job handed to an executor runs"
        }
    }
}
