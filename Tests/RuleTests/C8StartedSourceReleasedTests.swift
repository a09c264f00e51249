import TaskAPI
import Testing

/// C8.3 for a source whose task was started (`tryStart()`, C1.5: running) and not completed: once
/// released, nobody can complete it either, so it fails with `TaskError.abandoned` as a pending
/// one does. The reference model reads C8.3 so, and the random programs check it; no rule check
/// releases a started source. A release that tests for `.pending` instead of "not completed"
/// leaves such a task running forever (mutation run 4, H910).
@Suite("C8.3 A started source released fails its task")
struct C8StartedSourceReleasedTests {
    @Test("C8.3 a source released after tryStart() fails its running task with TaskError.abandoned", arguments: Backends.all)
    func startedSourceReleased(_ c: BackendCase) throws {
        var source: (any CompletionSource<Int>)? = c.backend.makeSource(of: Int.self)
        let task = try #require(source?.task)
        #expect(source?.tryStart() == true, "the first tryStart() of a pending source wins")
        #expect(task.status == .running, "a started source's task is running")
        source = nil
        let outcome = task.wait(timeout: .seconds(10))
        #expect(outcome?.error as? TaskError == .abandoned, "a released started source's task: \(String(describing: outcome))")
    }
}
