import BackendGCD
import BackendKit
import TaskAPI

/// A test-only outside backend (GCD underneath) whose `whenAll` knows only the kit's own task
/// class, `KitTask`, as a backend with a fast path for its own tasks and no general path might:
/// a bug of contract 1.4 (C5.1 with inputs of another class), which the rule suite's checks of
/// 1.3 did not see, for `ForeignInputCheckTests`.
///
/// `.dropsForeignInputs`: an input of another class is left out of the join, which succeeds
/// with the values of its own inputs only (no crash, no hang: a wrong answer).
/// `.forceCastsInputs`: every input is cast to `KitTask` with `as!`; one of another class traps.
struct ForeignBlindBackend: GCDForwarding {
    enum Bug: String, Sendable { case dropsForeignInputs = "drops-foreign", forceCastsInputs = "force-casts" }

    let bug: Bug
    let base = GCDBackend()

    init(_ bug: Bug) {
        self.bug = bug
    }

    var name: String { "foreign-blind-\(bug.rawValue)" }
    func makeSource<T: Sendable>(of type: T.Type) -> any CompletionSource<T> { base.sourceWithoutOrigin(of: type) }

    func whenAll<T: Sendable>(_ tasks: [any AsyncTask<T>]) -> any AsyncTask<[T]> {
        switch bug {
        case .dropsForeignInputs:
            return base.whenAll(tasks.filter { $0 is KitTask<T> })
        case .forceCastsInputs:
            // The bug under test: a cast that traps on an input of another class.
            return base.whenAll(tasks.map { $0 as! KitTask<T> })
        }
    }
}
