import TaskAPI

/// Where a derived task (`DerivedTask`) runs and what it checks before its body starts, in one
/// two-word field: the executor's existential and the guard's reference share it (the enum's
/// tag sits in the reference's spare bits), which makes a `map` node 104 bytes instead of 112,
/// a malloc chunk of 112 instead of 128.
enum Placement {
    /// The inline executor, under a token that can never be cancelled: the node may run right
    /// where it is handed over (`TaskCore.registerFresh`).
    case inPlace
    /// Any other executor, under a token that can never be cancelled.
    case on(any AsyncTaskExecutor)
    /// A token that can be cancelled: the guard checks it before the body starts (C4.3), and
    /// keeps the executor (`StartGuard.target`, `nil` for the inline one).
    case guarded(StartGuard)

    /// For a node registered on `executor` (nothing for the inline one, see
    /// `KitContinuation.stored`), under a token that can never be cancelled.
    @inline(__always)
    init(_ executor: any AsyncTaskExecutor) {
        if let target = KitContinuation.stored(executor) {
            self = .on(target)
        } else {
            self = .inPlace
        }
    }

    /// The executor to hand the node to; `nil` for the inline executor.
    @inline(__always)
    var target: (any AsyncTaskExecutor)? {
        switch self {
        case .inPlace: return nil
        case .on(let executor): return executor
        case .guarded(let startGuard): return startGuard.target
        }
    }

    /// Whether the node runs on `queue`, under a token that can never be cancelled: an identity
    /// test of the references, which the optimizer makes without retaining the stored one.
    @inline(__always)
    func isOn(_ queue: Unmanaged<KitQueueExecutor>) -> Bool {
        guard case .on(let executor) = self else { return false }
        return queue.toOpaque() == Unmanaged<AnyObject>.passUnretained(executor).toOpaque()
    }

    /// The guard of a token that can be cancelled; `nil` for one that can never be.
    @inline(__always)
    var startGuard: StartGuard? {
        switch self {
        case .inPlace, .on: return nil
        case .guarded(let startGuard): return startGuard
        }
    }
}
