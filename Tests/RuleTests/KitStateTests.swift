import Testing

@testable import BackendKit

/// The kit's task state machine (`KitState`): legal transitions give the documented actions, and
/// every impossible (phase, event) pair stops the program instead of being mapped to a plausible
/// answer. These check the checker; the rule suite checks the tasks built on it.
@Suite("C1.2, C1.5, C2.4 The kit's task state machine")
struct KitStateTests {
    /// A state in `phase`, consistent with it.
    static func state(_ phase: KitState.Phase) -> KitState {
        var state = KitState()
        state.phase = phase
        if state.isCompleted { state.ending = .success }
        return state
    }

    @Test("C1.5, C1.2 start and completion: the first wins, later ones are refused")
    func startAndComplete() {
        var state = KitState()
        #expect(state.on(.start) == .proceed)
        #expect(state.phase == .running)
        #expect(state.on(.start) == .refuse)
        #expect(state.on(.complete(.failure, stored: false)) == .proceed)
        #expect(state.phase == .completed)
        #expect(state.ending == .failure)
        #expect(state.on(.complete(.success, stored: true)) == .refuse)
        #expect(state.ending == .failure)
        #expect(state.on(.start) == .refuse)
    }

    @Test("C2.4 a delivery phase: registrations queue behind it, and it ends only when none is left")
    func delivery() {
        var state = KitState()
        #expect(state.on(.keepBody(first: true)) == .proceed)
        #expect(state.on(.keepBody(first: true)) == .refuse)  // one kept body
        #expect(state.on(.complete(.cancelled, stored: false)) == .handOver(inline: true))
        #expect(state.phase == .delivering)
        #expect(!state.holdsBody)
        #expect(state.on(.register) == .store)
        #expect(state.on(.registerWaker) == .store)
        #expect(state.on(.deliverInPlace) == .refuse)
        #expect(state.on(.endRound(stored: true)) == .handOver(inline: false))
        #expect(state.on(.endRound(stored: false)) == .proceed)
        #expect(state.phase == .completed)
        #expect(state.on(.registerWaker) == .refuse)  // the waker reads the outcome
        #expect(state.on(.keepBody(first: true)) == .refuse)
        #expect(state.on(.register) == .handOver(inline: false))  // a delivery of its own
        #expect(state.phase == .delivering)
        #expect(state.on(.endRound(stored: false)) == .proceed)
        #expect(state.on(.deliverInPlace) == .handOver(inline: false))
    }

    @Test("C1.1 a task no other thread can reach starts and completes without a delivery")
    func unshared() {
        var state = KitState()
        #expect(state.on(.startUnshared) == .proceed)
        #expect(state.on(.completeUnshared(.success)) == .proceed)
        #expect(state.phase == .completed)
        var made = KitState()
        #expect(made.on(.completeUnshared(.cancelled)) == .proceed)
        #expect(made.ending == .cancelled)
    }

    /// Every impossible pair, as (phase, event) indices an exit test can capture.
    static let impossible: [(phase: UInt8, event: Int)] = [
        (1, 0), (2, 0), (3, 0),  // startUnshared: running, completed, delivering
        (2, 1), (3, 1),  // completeUnshared: completed, delivering
        (0, 2), (1, 2), (2, 2)  // endRound: pending, running, completed
    ]

    static func event(_ index: Int) -> KitState.Event {
        switch index {
        case 0: return .startUnshared
        case 1: return .completeUnshared(.success)
        default: return .endRound(stored: false)
        }
    }

    @Test(
        "C1.1 an impossible transition stops the program, naming the state and the event",
        arguments: impossible.indices)
    func impossiblePairStops(_ index: Int) async {
        let phase: UInt8 = Self.impossible[index].phase
        let event: Int = Self.impossible[index].event
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [phase = phase as UInt8, event = event as Int] in
            var state = KitStateTests.state(KitState.Phase(rawValue: phase)!)
            _ = state.on(KitStateTests.event(event))
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        let state = Self.state(KitState.Phase(rawValue: phase)!)
        #expect(message.contains("kit task: event \(Self.event(event)) is impossible in \(state)"), "\(message)")
    }
}
