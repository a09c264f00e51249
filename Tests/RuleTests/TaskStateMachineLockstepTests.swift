import Testing

@testable import BackendKit
@testable import TaskAPI

/// The two task state machines, TaskAPI's `TaskStateMachine` (the toolkit for a backend written
/// outside the kit) and BackendKit's `KitState`, driven with the same event sequences: every
/// sequence of their shared events up to `depth` long gives the same answer at each step (refused,
/// took effect, stored, or a hand-over for the caller) and leaves them in the same place (status
/// and delivery phase). `KitState`'s kit-only events (a task no other thread can reach, a kept
/// inline body, a report in place) have no `TaskStateMachine` counterpart and are left to
/// `KitStateTests`; an event impossible in a state (a round ended outside a delivery) stops both,
/// which their exit tests check.
@Suite("C1.2, C1.5, C2.4 TaskStateMachine and KitState answer alike")
struct TaskStateMachineLockstepTests {
    /// The events both machines have.
    enum Event: CaseIterable, CustomStringConvertible {
        /// `start()` / `.start`.
        case start
        /// `complete(_:)` (and, when it hands over an empty batch, the documented loop's
        /// `nextDelivery()`) / `.complete(_, stored:)`.
        case complete
        /// `registerForDelivery(_:)` / `.register`.
        case register
        /// `register(_:)` / `.registerWaker`.
        case registerWaker
        /// `nextDelivery()` / `.endRound(stored:)`: only inside a delivery.
        case endRound

        var description: String {
            switch self {
            case .start: return "start"
            case .complete: return "complete"
            case .register: return "register"
            case .registerWaker: return "registerWaker"
            case .endRound: return "endRound"
            }
        }
    }

    /// What a caller does after an event, in `KitState.Action`'s terms.
    enum Answer: Equatable {
        case refuse, proceed, store, handOver
    }

    /// Both machines, in step.
    struct Pair {
        var kit = KitState()
        var machine = TaskStateMachine<Int, Int>()
        var registered = 0

        /// Whether `event` is possible now (a round ends only inside a delivery).
        func allows(_ event: Event) -> Bool {
            event != .endRound || kit.phase == .delivering
        }

        /// Applies `event` to both: the kit's answer and the machine's.
        mutating func apply(_ event: Event) -> (kit: Answer, machine: Answer) {
            let stored = !machine.continuations.isEmpty
            switch event {
            case .start:
                return (Self.answer(kit.on(.start)), machine.start() ? .proceed : .refuse)
            case .complete:
                let kitAnswer = Self.answer(kit.on(.complete(.success, stored: stored)))
                guard let batch = machine.complete(.success(7)) else { return (kitAnswer, .refuse) }
                if !batch.isEmpty { return (kitAnswer, .handOver) }
                // The documented loop hands the empty batch over and asks for the next: none.
                let next = machine.nextDelivery()
                return (kitAnswer, next == nil ? .proceed : .handOver)
            case .register:
                registered += 1
                return (Self.answer(kit.on(.register)), machine.registerForDelivery(registered) ? .handOver : .store)
            case .registerWaker:
                registered += 1
                return (Self.answer(kit.on(.registerWaker)), machine.register(registered) == nil ? .store : .refuse)
            case .endRound:
                return (Self.answer(kit.on(.endRound(stored: stored))), machine.nextDelivery() == nil ? .proceed : .handOver)
            }
        }

        /// Whether both are in the same place: the status, and the delivery phase.
        var agree: Bool {
            let status: TaskStatus
            switch kit.phase {
            case .pending: status = .pending
            case .running: status = .running
            case .completed, .delivering: status = .completed
            }
            return machine.status == status && machine._delivering == (kit.phase == .delivering)
        }

        static func answer(_ action: KitState.Action) -> Answer {
            switch action {
            case .refuse: return .refuse
            case .proceed: return .proceed
            case .store: return .store
            case .handOver: return .handOver
            }
        }
    }

    /// Sequences up to this long: long enough for two delivery rounds after a reopened delivery.
    static let depth = 7

    /// Every possible sequence up to `depth` events, each a prefix walked once: the disagreements
    /// (the sequence, the step and both answers).
    static func disagreements() -> (sequences: Int, found: [String]) {
        var found: [String] = []
        var sequences = 0
        func walk(_ pair: Pair, _ path: [Event]) {
            sequences += 1
            guard path.count < depth else { return }
            for event in Event.allCases where pair.allows(event) {
                var next = pair
                let (kit, machine) = next.apply(event)
                let sequence = (path + [event]).map(\.description).joined(separator: ", ")
                if kit != machine {
                    found.append("[\(sequence)]: KitState \(kit), TaskStateMachine \(machine)")
                } else if !next.agree {
                    found.append("[\(sequence)]: \(next.kit) but TaskStateMachine \(next.machine.stateDescription)")
                } else {
                    walk(next, path + [event])
                }
            }
        }
        walk(Pair(), [])
        return (sequences, found)
    }

    @Test("C1.2, C1.5, C2.4 every sequence of the shared events gives the same answers and states")
    func sameAnswers() {
        let (sequences, found) = Self.disagreements()
        #expect(sequences > 10_000, "only \(sequences) sequences walked")
        #expect(found.isEmpty, "\(found.count) disagreements, the first: \(found.prefix(5))")
    }

    /// The states in which a round cannot end: pending, running, completed and delivered.
    static let outsideDelivery: [[Event]] = [[], [.start], [.complete]]

    @Test(
        "C2.4 nextDelivery() outside a delivery stops the program, naming the state",
        arguments: outsideDelivery.indices)
    func endRoundOutsideDeliveryStops(_ index: Int) async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [index = index as Int] in
            var pair = Pair()
            for event in TaskStateMachineLockstepTests.outsideDelivery[index] { _ = pair.apply(event) }
            _ = pair.machine.nextDelivery()
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("TaskStateMachine: nextDelivery() is impossible in status "), "\(message)")
    }
}
