import TaskAPI

/// A kit task's completion without its value (TaskAPI's `Completion`, `Void` in place of the
/// value): `.success(())` means the value is in the `KitTask<T>`'s slot (stored before the
/// completion is published), failure and cancellation are complete as they are. Non-generic, so the core's state never boxes a value or looks up
/// generic metadata.
@usableFromInline typealias KitCompletion = Completion<Void>

/// Where a kit task is, in three bytes (they share a word with the sanitizer edge and the lock),
/// and the one place that changes it: `on(_:)` lists every legal (phase, event) pair with what it
/// does and what the caller must do next, as swift-async-algorithms' state machines do; every
/// other pair is a bug of the kit and stops the program, naming the state and the event.
///
/// `TaskCore` keeps it under its lock (or, for a task no other thread can reach yet, without)
/// and acts on the returned `Action` after the transition: it stores a continuation, fills the
/// value slot, hands a batch over. The machine holds no continuation and no value itself, so it
/// stays three bytes; TaskAPI's `TaskStateMachine` is the same protocol for a backend that keeps
/// everything in one generic value (DESIGN.md, "The task").
struct KitState: CustomStringConvertible {
    enum Phase: UInt8 {
        case pending, running
        /// Completed, and every continuation handed over.
        case completed
        /// Completed, and a delivery is handing continuations over: a registration is stored
        /// behind them and that delivery takes it (C2.4).
        case delivering
    }

    /// How the task completed; `.none` while it has not.
    enum Ending: UInt8 {
        case none, success, failure, cancelled

        /// The ending `outcome` records.
        @inline(__always)
        init(_ outcome: KitCompletion) {
            switch outcome {
            case .success: self = .success
            case .failure: self = .failure
            case .cancelled: self = .cancelled
            }
        }
    }

    /// What happens to a task: each member of `TaskCore` that looks at or changes the phase is
    /// one of these.
    enum Event: CustomStringConvertible {
        /// A body claims the start (`tryStart`, C1.5).
        case start
        /// A derived task that no other thread can reach yet starts its body (`startUnshared`).
        case startUnshared
        /// A completion (C1.1, C1.2); `stored`: continuations are stored.
        case complete(Ending, stored: Bool)
        /// A completion of a task that no other thread can reach yet, with nothing registered
        /// (`completeUnshared`, and a task made completed).
        case completeUnshared(Ending)
        /// A registration handed over through a delivery phase (`register`, `registerFresh`).
        case register
        /// A waker's registration (`wait`, `value`), which needs no delivery phase.
        case registerWaker
        /// The body of an inline `whenComplete` kept in the task's own field
        /// (`registerInline`), or a `whenAll`'s join kept in a `run`'s task's own fields
        /// (`TaskCore.join(_:at:on:)`); `first`: no continuation is stored yet.
        case keepBody(first: Bool)
        /// A report made in place of a registration (`TaskCore.join(_:at:on:)`).
        case deliverInPlace
        /// The end of a delivery round (`nextDelivery`); `stored`: continuations were registered
        /// meanwhile.
        case endRound(stored: Bool)

        var description: String {
            switch self {
            case .start: return "start"
            case .startUnshared: return "startUnshared"
            case .complete(let ending, let stored): return "complete(\(ending), stored: \(stored))"
            case .completeUnshared(let ending): return "completeUnshared(\(ending))"
            case .register: return "register"
            case .registerWaker: return "registerWaker"
            case .keepBody(let first): return "keepBody(first: \(first))"
            case .deliverInPlace: return "deliverInPlace"
            case .endRound(let stored): return "endRound(stored: \(stored))"
            }
        }
    }

    /// What the caller does after a transition.
    enum Action: Equatable {
        /// Nothing changed: the task is past what the event asks for (a lost completion race,
        /// a start after the task started or completed, a waker on a delivered task, which
        /// reads the outcome instead).
        case refuse
        /// The event took effect and there is nothing to hand over: a start won, a completion
        /// with nothing registered, a body kept, a delivery that ends.
        case proceed
        /// Store the continuation: the current or a later delivery takes it.
        case store
        /// A delivery phase is open for this caller: hand over (the kept inline body first, if
        /// `inline`), then the batch or the continuation, with the recorded outcome.
        case handOver(inline: Bool)
    }

    var phase = Phase.pending
    var ending = Ending.none
    /// The task holds an inline `whenComplete`'s body (`SourceTask`), not yet handed over.
    var holdsBody = false

    var isCompleted: Bool { phase == .completed || phase == .delivering }

    var description: String { "KitState(phase: \(phase), ending: \(ending), holdsBody: \(holdsBody))" }

    /// Applies `event`: the transition, then, in debug builds, the state's own invariant.
    @_transparent
    mutating func on(_ event: Event) -> Action {
        let action = transition(event)
        assert(isConsistent, "kit task: event \(event) left an inconsistent \(self)")
        return action
    }

    /// Every (phase, event) pair: the legal ones with their effect and the caller's action, the
    /// impossible ones a stop naming both. No `default:`: a new phase or event does not compile
    /// until each pair is decided.
    @_transparent
    mutating func transition(_ event: Event) -> Action {
        switch (phase, event) {
        case (.pending, .start):
            phase = .running
            return .proceed
        case (.running, .start), (.completed, .start), (.delivering, .start):
            return .refuse

        case (.pending, .startUnshared):
            phase = .running
            return .proceed
        case (.running, .startUnshared), (.completed, .startUnshared), (.delivering, .startUnshared):
            Self.impossible(self, event)  // a task another thread can reach, or started twice

        case (.pending, .complete(let ending, let stored)), (.running, .complete(let ending, let stored)):
            self.ending = ending
            let inline = holdsBody
            holdsBody = false
            // With nothing to hand over, no delivery phase opens (the trampoline is not touched).
            guard stored || inline else {
                phase = .completed
                return .proceed
            }
            phase = .delivering
            return .handOver(inline: inline)
        case (.completed, .complete), (.delivering, .complete):
            return .refuse  // C1.2: the first completion won

        case (.pending, .completeUnshared(let ending)), (.running, .completeUnshared(let ending)):
            self.ending = ending
            phase = .completed
            return .proceed
        case (.completed, .completeUnshared), (.delivering, .completeUnshared):
            Self.impossible(self, event)  // completed twice by its only owner

        case (.pending, .register), (.running, .register), (.delivering, .register):
            return .store  // C2.4: a running delivery takes it, behind the batch it hands over
        case (.completed, .register):
            phase = .delivering
            return .handOver(inline: false)

        case (.pending, .registerWaker), (.running, .registerWaker), (.delivering, .registerWaker):
            return .store
        case (.completed, .registerWaker):
            return .refuse  // the caller reads the outcome

        case (.pending, .keepBody(let first)), (.running, .keepBody(let first)):
            guard first, !holdsBody else { return .refuse }
            holdsBody = true
            return .proceed
        case (.completed, .keepBody), (.delivering, .keepBody):
            return .refuse

        case (.completed, .deliverInPlace):
            phase = .delivering
            return .handOver(inline: false)
        case (.pending, .deliverInPlace), (.running, .deliverInPlace), (.delivering, .deliverInPlace):
            return .refuse  // the caller registers a node instead

        case (.delivering, .endRound(let stored)):
            if stored { return .handOver(inline: false) }
            phase = .completed  // from now on a registration opens a delivery of its own
            return .proceed
        case (.pending, .endRound), (.running, .endRound), (.completed, .endRound):
            Self.impossible(self, event)  // only a delivery ends a round
        }
    }

    /// The invariant every transition keeps: an ending exactly once completed, and an inline
    /// body only before the completion that hands it over.
    var isConsistent: Bool {
        switch phase {
        case .pending, .running: return ending == .none
        case .completed, .delivering: return ending != .none && !holdsBody
        }
    }

    /// An impossible pair: a bug of the kit, never of its caller. Out of line and cold, so that
    /// the hot paths pay one branch they take the same way every time (a release build stops
    /// without the message; a debug build prints it).
    @inline(never)
    static func impossible(_ state: KitState, _ event: Event) -> Never {
        preconditionFailure("kit task: event \(event) is impossible in \(state)")
    }
}
