import BackendActors
import BackendGCD
import BackendThreads
import Conformance
import TaskAPI
import Testing

/// Issue 28's bug, found by the harness on unmutated code: a parent's `cancel()` returned while a
/// handler of a linked grandchild, started by another `cancel()`, had not run yet (C4.1: once any
/// `cancel()` returned, the source's linked sources are cancelled, their handlers ran too). The
/// linked source's first handlers disposed its registrations on its parents, so `k0.cancel()`
/// found nothing to run (and nothing to wait on) while `k3.cancel()` still ran `k5`'s handlers.
/// Its shrunk program stays a regression test, on every backend. Serialized: each case runs
/// programs and checks on threads of its own, and side by side they would crowd the two cores
/// that every other suite's timing checks share.
@Suite(.serialized) struct LinkedCancellationTests {
    static let shrunkProgram = """
        program seed=6190133247657680026 drivers=2 serial=1 counting=0 steps=10
           0 d0 t0 = prepare(on: .some(serial0)) { returns }
           1 d1 k0 = makeCancellationSource()
           2 d0 k1 = makeCancellationSource()
           3 d0 k2 = makeCancellationSource()
           4 d0 k3 = makeCancellationSource(linkedTo: k2, k0, k1)
           5 d1 k4 = makeCancellationSource(linkedTo: k3)
           6 d0 k5 = makeCancellationSource(linkedTo: k3)
           7 d0 h4 = k5.token.register { }
           8 d0 k3.cancel()
           9 d1 k0.cancel()
        """

    static let backends: [(name: String, make: @Sendable () -> any TaskBackend)] =
        ControlledReplayTests.backends

    /// The replay (controlled-random, which found it 3 times in 3 on the GCD backend)
    /// and 24 more random-walk schedules of the same program, on each backend: no finding.
    @Test(arguments: backends.map(\.name))
    func shrunkProgramPasses(backend name: String) async throws {
        let make = try #require(Self.backends.first { $0.name == name }?.make)
        let program = try Program(parsing: Self.shrunkProgram)
        let modes = [ScheduleMode.controlled(.randomWalk)] + (1...24).map { ScheduleMode.controlled(.schedule($0, of: .randomWalk)) }
        for mode in modes {
            let run = await Conformance.runProgram(make(), program: program, mode: mode)
            #expect(run.findings.isEmpty, "[\(name), \(mode)] \(run.findings.map(\.description))")
        }
    }

    /// The rule suite's check of the same guarantee, by hand and with no schedule to find: a
    /// parent's `cancel()` racing a child's, whose handlers run a grandchild's slow handler.
    @Test(arguments: backends.map(\.name) + ["loop"])
    func ruleCheckPasses(backend name: String) async throws {
        let check = try #require(RuleSuite.checks.first { $0.rule == .c4_1 && $0.name.contains("linked source's handlers ran") })
        let backend: any TaskBackend
        if let make = Self.backends.first(where: { $0.name == name })?.make {
            backend = make()
        } else {
            // An outside backend delivering from an event loop, as SwiftNIO does.
            backend = LoopBackend(latency: .milliseconds(1))
        }
        let failures = await RuleSuite.run(check, on: backend)
        #expect(failures.isEmpty, "[\(name)] \(failures.map(\.description))")
    }
}
