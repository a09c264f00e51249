import Conformance
import Foundation
import Testing
import TaskAPI

@Suite("C8 Resources")
struct C8ResourceTests {
    @Test("C8.1 after completion nothing keeps continuation closures or captures alive", arguments: Backends.all)
    func closuresReleased(_ c: BackendCase) throws {
        let backend = c.backend
        let source = backend.makeSource(of: Int.self)
        let serial = backend.makeSerialExecutor(label: "c8.1")
        let user = UserExecutor()
        var weakProbes: [() -> Probe?] = []
        var tasks: [any AsyncTask<Int>] = []
        for executor in [backend.defaultExecutor, backend.inlineExecutor, serial, user] {
            let probe = Probe()
            weak let weakProbe = probe
            weakProbes.append { weakProbe }
            tasks.append(source.task.map(on: executor) { _ = probe; return $0 })
            tasks.append(source.task.continueWithTask(on: executor, token: .none) { _ in _ = probe; return backend.succeeded(1) })
            tasks.append(source.task.recover(on: executor) { _ in _ = probe; return 0 })
            tasks.append(source.task.finally(on: executor) { _ in _ = probe })
        }
        let token = backend.makeCancellationSource()
        do {
            let probe = Probe()
            weak let tokenProbe = probe
            weakProbes.append { tokenProbe }
            tasks.append(backend.run(token: token.token) { _ in _ = probe; return 1 })
            tasks.append(source.task.timeout(after: .seconds(60)))
        }
        source.trySucceed(1)
        #expect(backend.whenAll(tasks).settle()?.isSuccess == true)
        #expect(tasks.allSatisfy { $0.status == .completed })
        #expect(eventually { weakProbes.allSatisfy { $0() == nil } }, "a completed continuation's captures are still alive")
    }

    @Test("C8.2 tasks and sources are freed when unreferenced, pending or completed", arguments: Backends.all)
    func noRetainCycles(_ c: BackendCase) throws {
        let backend = c.backend
        weak var pendingTask: (any AsyncTask<Int>)?
        weak var pendingChain: (any AsyncTask<Int>)?
        weak var completedChain: (any AsyncTask<Int>)?
        weak var cancellation: (any CancellationSource)?
        do {
            let source = backend.makeSource(of: Int.self)
            pendingTask = source.task
            pendingChain = source.task.map { $0 + 1 }.flatMap { backend.succeeded($0) }
            let done = backend.succeeded(1).map(on: backend.inlineExecutor) { $0 + 1 }
            _ = done.settle()
            completedChain = done
            let tokenSource = backend.makeCancellationSource()
            cancellation = tokenSource
            _ = source.task.map(token: tokenSource.token) { $0 }
        }
        #expect(eventually { pendingTask == nil }, "a pending task with no source reference leaked")
        #expect(eventually { pendingChain == nil }, "a pending chain leaked")
        #expect(eventually { completedChain == nil }, "a completed chain leaked")
        #expect(eventually { cancellation == nil }, "a cancellation source leaked")
    }

    /// In a child process: a failure here is a stack overflow, which would kill the test run.
    @Test("C8.2 a long pending chain dropped unfinished is freed without overflowing the stack",
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
}
