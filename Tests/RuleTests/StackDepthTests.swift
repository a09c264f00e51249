import Conformance
import Foundation
import TaskAPI
import Testing

/// C2.7 and C8.2's dropped chain: the rule checks whose failure is a stack overflow, which
/// kills the process running them. Exit tests run them in a child process per backend, so that
/// an overflow fails one test; this is what the Swift Testing adapter adds to the rule suite
/// (`Conformance.checkAll` runs the same `checkResources` in-process).
@Suite("C2.7, C8.2 Stack depth and freeing")
struct StackDepthTests {
    /// Serialized: each case is a child process running millions of links; three at once on two
    /// cores starved the rest of the parallel run (async tests overran their time limits).
    @Test("C2.7 long chains and wide fan-outs never overflow the stack", .serialized, arguments: Backends.all)
    func stackSafety(_ c: BackendCase) async throws {
        await #expect(processExitsWith: .success) { [name = c.name as String] in
            guard let backend = Backends.named(name) else { exit(3) }
            let ok = StackProbe.onSmallStack { StackProbe.runAll(backend) }
            exit(ok ? 0 : 1)
        }
    }

    /// In a child process: a failure here is a stack overflow, which would kill the test run.
    @Test(
        "C8.2 a long pending chain dropped unfinished is freed without overflowing the stack",
        .serialized, arguments: Backends.all)
    func droppedPendingChain(_ c: BackendCase) async {
        await #expect(processExitsWith: .success) { [name = c.name as String] in
            guard let backend = Backends.named(name) else { exit(3) }
            // The harness's own check (on its 512 KiB thread), as a backend from outside runs it.
            let findings = Conformance.checkResources(backend, links: StackProbe.links, checks: [.droppedPendingChain])
            for finding in findings { print("\(finding.rule): \(finding.message); observed \(finding.observed)") }
            exit(findings.isEmpty ? 0 : 1)
        }
    }

    /// The one public path known to free a pending kit task that holds continuations (the check
    /// above never does: since C8.3 its dropped source completes the chain, which is then
    /// delivered, not freed pending). An executor that drops a continuation's job without running
    /// it (breaking C7.3, as `ClosureExecutor { _ in }` does) lets the derived task go pending,
    /// with the chain registered on it: its `deinit` must free that chain in a loop (the kit's
    /// graveyard, `ThreadRuntime.release`), not one deinit inside the other.
    @Test(
        "C8.2 a pending chain freed when an executor drops its head's job does not overflow the stack",
        .serialized, arguments: Backends.all)
    func chainDroppedByExecutor(_ c: BackendCase) async {
        await #expect(processExitsWith: .success) { [name = c.name as String] in
            guard let backend = Backends.named(name) else { exit(3) }
            let freed = StackProbe.onSmallStack { StackProbe.chainDroppedByExecutor(backend) }
            if !freed { print("C8.2: the chain behind a dropped job was not freed") }
            exit(freed ? 0 : 1)
        }
    }
}
