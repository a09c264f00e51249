import BackendThreads
import Foundation
import Synchronization
import TaskAPI

/// A test-only instrumented backend (the threads backend underneath) with background work that
/// never stops until `stop()`, for `SeatedPhaseCapTests`: its seated runs never become quiescent.
///
/// `.jobs`: after every job its default executor runs, it submits a no-op job to the threads
/// backend's default executor, which submits another when it ran, and so on: a relay of jobs
/// that reschedule each other forever. `.timers`: after every timer fires, it arms a no-op
/// timer of the same delay on the threads backend's timer thread, which arms another when it
/// fired, and so on: a timer that re-arms itself forever (on seats, the run's clock jumps to
/// each one's deadline). Neither logs anything or keeps the program from finishing: natively,
/// every program runs as on the threads backend, with that churn beside it.
final class RelayBackend: TaskBackend {
    enum Relay { case jobs, timers }

    let relay: Relay
    private let base = ThreadsBackend()
    private let state = RelayState()
    let defaultExecutor: any AsyncTaskExecutor

    init(_ relay: Relay) {
        self.relay = relay
        switch relay {
        case .jobs: defaultExecutor = RelayExecutor(base.defaultExecutor, state: state)
        case .timers: defaultExecutor = base.defaultExecutor
        }
    }

    var name: String { "relay-\(relay)" }
    var isScheduleInstrumented: Bool { true }
    var inlineExecutor: any AsyncTaskExecutor { base.inlineExecutor }
    func makeSerialExecutor(label: String) -> any AsyncTaskExecutor { base.makeSerialExecutor(label: label) }
    func makeCancellationSource() -> any CancellationSource { base.makeCancellationSource() }
    func makeSource<T: Sendable>(of type: T.Type) -> any CompletionSource<T> { base.makeSource(of: type) }

    func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable {
        switch relay {
        case .jobs:
            return base.schedule(after: delay, job)
        case .timers:
            return base.schedule(after: delay) { [base, state] in
                job()
                Self.rearm(base, after: delay, state: state)
            }
        }
    }

    /// `.timers`: a no-op timer that arms the next when it fires, until `stop()`.
    private static func rearm(_ base: ThreadsBackend, after delay: Duration, state: RelayState) {
        guard state.relayed() else { return }
        _ = base.schedule(after: delay) { rearm(base, after: delay, state: state) }
    }

    /// How many relayed jobs or re-armed timers there were so far.
    var relays: Int { state.count.load(ordering: .relaxed) }

    /// Ends the relay: the next relayed job or timer arms no other.
    func stop() {
        state.stopped.store(true, ordering: .releasing)
    }
}

/// A relay's count, and whether it was stopped.
private final class RelayState: Sendable {
    let stopped = Atomic(false)
    let count = Atomic(0)

    /// One more relay, unless stopped (`false`).
    func relayed() -> Bool {
        guard !stopped.load(ordering: .acquiring) else { return false }
        count.add(1, ordering: .relaxed)
        return true
    }
}

/// `.jobs`: the threads backend's default executor, each job followed by a relay of no-op jobs.
private final class RelayExecutor: AsyncTaskExecutor {
    let base: any AsyncTaskExecutor
    let state: RelayState

    init(_ base: any AsyncTaskExecutor, state: RelayState) {
        self.base = base
        self.state = state
    }

    func execute(_ job: @escaping @Sendable () -> Void) {
        base.execute { [base, state] in
            job()
            Self.relay(on: base, state: state)
        }
    }

    /// A no-op job that submits the next when it ran, until `stop()`.
    private static func relay(on base: any AsyncTaskExecutor, state: RelayState) {
        guard state.relayed() else { return }
        base.execute { relay(on: base, state: state) }
    }

    var isCurrent: Bool { base.isCurrent }
}
