/// Which call form a step uses, where a name has several (C9.1): the executor and the token both
/// named (the requirement, where there is one), the executor alone (`on:` an optional executor),
/// the token alone (`token:`, on the default executor), or a `PinnedActor` pinned to the serial
/// executor (`on:` the actor, an isolated body, C9.10). Each is one candidate.
public enum CallForm: String, Sendable, Hashable, CaseIterable {
    case requirement, executor, token, actor

    /// The form made consistent with its arguments: the executor form takes no token, the token
    /// form needs one and runs on the default executor, the actor form runs on a serial executor
    /// made by `makeActorExecutor(label:)` (an odd one, `BackendExecutorProvider`); otherwise the
    /// requirement's form.
    static func consistent(_ form: CallForm, executor: ExecutorRef, token: Int?) -> CallForm {
        switch form {
        case .requirement: return .requirement
        case .executor: return token == nil ? .executor : .requirement
        case .token:
            guard executor == .default else { return .requirement }
            return token == nil ? .executor : .token
        case .actor: return executor.isActorExecutor ? .actor : .requirement
        }
    }

    /// The arguments as a step prints them: `(on: x, token: k)`, `(on: .some(x))`, `(token: k)`,
    /// `(on: actor(serial1), token: k)`.
    func arguments(executor: ExecutorRef, token: Int?) -> String {
        switch self {
        case .requirement: return "(on: \(executor)\(tokenArgument(token)))"
        case .executor: return "(on: .some(\(executor)))"
        case .token: return "(token: k\(token ?? 0))"
        case .actor: return "(on: actor(\(executor))\(tokenArgument(token)))"
        }
    }
}

extension ExecutorRef {
    /// A serial executor the provider makes with `makeActorExecutor(label:)` when the backend has
    /// actor executors (C9.9): the odd ones.
    var isActorExecutor: Bool { if case .serial(let n) = self { return n % 2 == 1 } else { return false } }
}
