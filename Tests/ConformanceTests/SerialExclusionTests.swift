import BackendGCD
import Conformance
import TaskAPI
import Testing

/// C7.2's "one job at a time": the rule suite's check whose jobs hold on for the next one
/// (`RuleSuite.C7SerialExclusion`) fails an outside backend whose serial executors run jobs side
/// by side, which the FIFO check's short jobs let pass, and passes the package's backends.
@Suite struct SerialExclusionTests {
    /// GCD underneath, its serial executors its default (parallel) one.
    static func concurrentSerial() -> GCDWrapper {
        let base = GCDBackend()
        return GCDWrapper(name: "concurrent-serial", makeSerialExecutor: { _ in base.defaultExecutor })
    }

    static func check() throws -> RuleCheck {
        try #require(RuleSuite.checks.first { $0.rule == .c7_2 && $0.name.contains("starts no job while another runs") })
    }

    @Test("C7.2 the rule suite fails a serial executor that runs two jobs at once")
    func concurrentSerialExecutorFails() async throws {
        let failures = await RuleSuite.run(try Self.check(), on: Self.concurrentSerial())
        let overlap = try #require(failures.first { $0.message.contains("one job at a time") }, "\(failures)")
        #expect(overlap.rule == .c7_2)
        #expect(overlap.observed?.contains("the second job started before the first ended") == true, "\(overlap)")
    }

    @Test("C7.2 the package's serial executors pass the one-job-at-a-time check", arguments: PackageBackends.names)
    func packageBackendsPass(_ name: String) async throws {
        let failures = await PackageBackends.failures(of: try Self.check(), on: name)
        #expect(failures.isEmpty, "\(name): \(failures)")
    }
}
