import Conformance
import TaskAPI
import Testing

/// C8.3 inside inline work: the rule suite's check of a pending source whose last reference goes
/// in an inline job queued behind the running inline work (`C8AbandonedInsideInlineWork`) passes
/// the package's backends and fails an outside backend whose inline executor keeps every job it
/// ran, and with it the source a job's closure captured: that task never fails abandoned.
@Suite struct AbandonedInsideInlineWorkTests {
    /// Runs each job at once, in place, and keeps it (its closure and captures) for good.
    final class KeepingInlineExecutor: AsyncTaskExecutor {
        private let kept = RuleSuite.Recorder<@Sendable () -> Void>()

        func execute(_ job: @escaping @Sendable () -> Void) {
            kept.append(job)
            job()
        }
    }

    static func check() throws -> RuleCheck {
        try #require(RuleSuite.checks.first { $0.rule == .c8_3 && $0.name.contains("queued behind inline work") })
    }

    @Test("C8.3 the rule suite fails a backend whose inline jobs keep the source they captured after they ran")
    func keptSourceFails() async throws {
        let backend = GCDWrapper(name: "keeping-inline", inlineExecutor: KeepingInlineExecutor())
        let failures = await RuleSuite.run(try Self.check(), on: backend)
        let kept = try #require(failures.first { $0.call?.contains("captured by that job's closure") == true }, "\(failures)")
        #expect(kept.rule == .c8_3)
        #expect(kept.observed?.contains("10 of 10 not") == true, "\(kept)")
        #expect(!failures.contains { $0.call?.contains("released by the inline job") == true }, "\(failures)")
    }

    @Test("C8.3 the package's backends fail a source dropped behind inline work abandoned", arguments: PackageBackends.names)
    func packageBackendsPass(_ name: String) async throws {
        let failures = await PackageBackends.failures(of: try Self.check(), on: name)
        #expect(failures.isEmpty, "\(name): \(failures)")
    }

    /// A backend delivering on an event loop of its own runs the inline work later, on the loop:
    /// the check waits for it rather than reading sources made after the completing call returned.
    @Test("C8.3 a backend that delivers inline work on its event loop, later, passes the check")
    func eventLoopBackendPasses() async throws {
        let failures = await RuleSuite.run(try Self.check(), on: LoopBackend(latency: .milliseconds(5)))
        #expect(failures.isEmpty, "\(failures)")
    }
}
