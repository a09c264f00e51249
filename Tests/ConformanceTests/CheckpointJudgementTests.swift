import Testing

@testable import Conformance

/// How a body's `checkpoint()` that returned is judged against a `cancel()` of its token (C4.4,
/// `Checkers.checkCancellation`): only a cancellation logged before the checkpoint began to read
/// its token is conclusive. Its result is logged after the read, so a `cancel()` that returned
/// in between, on another thread, came too late for it: a thread preempted there in a crowded
/// test process made the reference backend's mutant `lifoContinuations` fail as C4.4 once, a
/// rule its bug cannot break. Built from the events alone, without a run.
@Suite struct CheckpointJudgementTests {
    /// d0 makes token k0, source t0, t1 = t0.map(on: default, token: k0) { checkpoint }, and
    /// completes t0; d1 cancels k0.
    static let program = Program(
        seed: 1, drivers: 2, serialExecutors: 0, countingExecutors: 0,
        steps: [
            Step(driver: 0, operation: .makeToken(token: 0, linkedTo: []), pause: .none),
            Step(driver: 0, operation: .makeSource(task: 0, held: nil), pause: .none),
            Step(
                driver: 0, operation: .chain(task: 1, kind: .map, antecedent: 0, executor: .default, token: 0, body: .checkpoint),
                pause: .none),
            Step(driver: 0, operation: .complete(source: 0, outcome: .success, throwing: false), pause: .none),
            Step(driver: 1, operation: .cancel(token: 0), pause: .none)
        ])

    /// The C4.4 findings for a run whose body of t1 logged `body` (its checkpoint's events among
    /// the cancel step's), after d0's steps.
    static func c4_4Findings(_ body: [EventKind]) -> [Finding] {
        var kinds: [EventKind] = (0..<4).flatMap { [EventKind.stepStart(step: $0), .stepEnd(step: $0)] }
        kinds.append(
            .bodyStart(
                task: 1, inner: false, input: .success(0), counting: 0, payloadOK: nil, inside: BodyReads(status: nil, isCurrent: nil)))
        kinds += body
        kinds.append(.bodyEnd(task: 1, inner: false))
        let events = kinds.enumerated().map { index, kind in
            let cancelling = if case .stepStart(4) = kind { true } else if case .stepEnd(4) = kind { true } else { false }
            return Event(
                seq: UInt64(index), thread: cancelling ? 2 : 3, driver: cancelling ? 2 : 0, uptime: UInt64(index) * 1_000, kind: kind,
                underControl: false)
        }
        var checkers = Checkers(program: program, observations: Observations(events), snapshot: [true, true])
        checkers.checkCancellation()
        return checkers.findings.filter { $0.rule == .c4_4 }
    }

    /// The cancel() returned between the checkpoint's read and the log of its result: the read
    /// came first, so returning is right, and no finding.
    @Test("C4.4: a checkpoint whose read came before the cancel() returned may return")
    func aCancelDuringTheCheckpointIsNoFinding() {
        let findings = Self.c4_4Findings([
            .checkpointBegan(task: 1), .stepStart(step: 4), .stepEnd(step: 4), .checkpoint(task: 1, threw: false)
        ])
        #expect(findings.isEmpty, "\(findings)")
    }

    /// The cancel() returned before the checkpoint began to read: it must throw, and a
    /// checkpoint that returned is C4.4.
    @Test("C4.4: a checkpoint that began after the cancel() returned and did not throw is a finding")
    func aCancelBeforeTheCheckpointIsC4_4() throws {
        let findings = Self.c4_4Findings([
            .stepStart(step: 4), .stepEnd(step: 4), .checkpointBegan(task: 1), .checkpoint(task: 1, threw: false)
        ])
        let finding = try #require(findings.first)
        #expect(finding.message.contains("did not throw after its token k0 was cancelled"), "\(finding.message)")
    }

    /// A checkpoint that threw once the cancel() had begun (its request) is right, whichever
    /// way its events interleave with the step's end.
    @Test("C4.4: a checkpoint that threw after the cancel began is no finding")
    func aCheckpointThatThrewAfterTheRequestIsNoFinding() {
        let findings = Self.c4_4Findings([
            .stepStart(step: 4), .checkpointBegan(task: 1), .checkpoint(task: 1, threw: true), .stepEnd(step: 4)
        ])
        #expect(findings.isEmpty, "\(findings)")
    }
}
