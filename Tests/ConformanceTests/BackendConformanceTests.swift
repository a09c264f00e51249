import BackendActors
import BackendGCD
import BackendThreads
import Conformance
import Dispatch
import TaskAPI
import Testing

/// The generated-program suite against every backend of the package, with the default budget
/// (or the CONFORMANCE_* environment variables). Each program gets a new backend: a backend kept
/// from one program to the next keeps threads parked natively (a pool's idle workers) that a seat
/// of the next controlled run may wake, outside the run's seats, which made a run on the shared
/// threads backend hang once in a CI rehearsal (and a replay line, which runs on a new backend,
/// could not reproduce it).
@Suite(.serialized)
struct BackendConformanceTests {
    static func configuration(knownIssues: [Rule: String] = [:]) -> ConformanceConfiguration {
        var configuration = ConformanceConfiguration.forCurrentTest()
        // The resource checks (C2.7, C8.2 at 1,000,000 links) run per backend in child processes
        // in RuleTests (StackDepthTests: stackSafety, droppedPendingChain),
        // through the same `Conformance.checkResources`; running them here again would double
        // the longest part of `swift test`.
        configuration.resourceLinks = 0
        configuration.knownIssues = knownIssues
        return configuration
    }

    /// Prints both coverage tables; at the default budget (1,000 mixed programs), every entry
    /// point of TaskAPI that programs can call was called and judged (issue 22).
    static func coverage(_ report: ConformanceReport) {
        print(report.coverageTable)
        print(report.entryPointTable)
        guard report.programsRun >= 1_000, report.controlledPrograms > 0, report.controlledPrograms < report.programsRun else { return }
        let uncalled = report.entryPoints.uncalled.filter { $0.notGenerated == nil }
        #expect(uncalled.isEmpty, "[\(report.backend)] entry points no program called: \(uncalled.map(\.rawValue))")
        #expect(
            report.entryPoints.unjudged.isEmpty,
            "[\(report.backend)] entry points no check judged: \(report.entryPoints.unjudged.map(\.rawValue))")
    }

    /// Issue 28, backend configurations: each backend under its constructor's parameters at
    /// their limits. C6.4 promises 16 nested blocking waits, so a bound below 16 promises
    /// nothing there. At 16 with one worker (the threads backend), the rule suite's C6.4
    /// checks, 16 bodies blocked while a 17th body or continuation must run, need every thread
    /// the bound allows, so a bound short by one deadlocks them (found by their 1 s bound); the
    /// GCD and actors backends keep one worker per processor beside their bound. The whole rule suite runs on each, not the
    /// programs: two drivers' nested waits at once can block 30 bodies, which a bound of 16 need
    /// not serve. (Blocked bodies counted against the bound, exactly, at 1 and 16: RuleTests'
    /// `BlockingLimitTests.blockedBodiesCountAgainstTheBound`.)
    static let limitConfigurations: [(name: String, make: @Sendable () throws -> any TaskBackend)] = [
        ("gcd(maxBlockedThreads: 16)", { try GCDBackend(maxBlockedThreads: 16) }),
        ("threads(workers: 1, maxBlockedThreads: 16)", { try ThreadsBackend(workers: 1, maxBlockedThreads: 16) }),
        (
            "threads(workers: 1, maxBlockedThreads: maximumLimit)",
            {
                try ThreadsBackend(workers: 1, maxBlockedThreads: BlockingThreads.maximumLimit)
            }
        ),
        ("actors(maxBlockedThreads: 16)", { try ActorsBackend(maxBlockedThreads: 16) })
    ]

    @Test(arguments: limitConfigurations.map(\.name))
    func atTheLimits(_ name: String) async throws {
        let make = try #require(Self.limitConfigurations.first { $0.name == name }?.make)
        let report = await RuleSuite.run(try make())
        for failure in report.failures { Issue.record("[\(name)] \(failure)") }
        #expect(!report.checks.isEmpty)
    }

    /// BackendGCD's `DispatchQueueExecutor`, a serial and a concurrent queue, judged as any
    /// executor (C7.1, C7.3, C9.7) by the suite's check for a backend's own executors.
    static let dispatchQueueExecutorCheck = RuleSuite.executorCheck(named: "DispatchQueueExecutor") {
        DispatchQueueExecutor(DispatchQueue(label: "DispatchQueueExecutor check"))
    }
    static let concurrentDispatchQueueExecutorCheck = RuleSuite.executorCheck(named: "DispatchQueueExecutor (concurrent)") {
        DispatchQueueExecutor(DispatchQueue(label: "DispatchQueueExecutor check", attributes: .concurrent))
    }

    @Test func ownExecutors() async {
        let checks = [Self.dispatchQueueExecutorCheck, Self.concurrentDispatchQueueExecutorCheck]
        let report = await RuleSuite.run(GCDBackend(), checks: checks)
        for failure in report.failures { Issue.record("\(failure)") }
        #expect(report.checks.count == checks.count)
    }

    @Test func gcd() async {
        let report = await Conformance.check(makeBackend: { GCDBackend() }, configuration: Self.configuration())
        report.recordIssues()
        Self.coverage(report)
        #expect(report.programsRun > 0 || report.skippedForReplay != nil)
    }

    @Test func threads() async {
        let report = await Conformance.check(makeBackend: { ThreadsBackend() }, configuration: Self.configuration())
        report.recordIssues()
        Self.coverage(report)
        #expect(report.programsRun > 0 || report.skippedForReplay != nil)
    }

    @Test func actors() async {
        let report = await Conformance.check(makeBackend: { ActorsBackendTesting.ownPool() }, configuration: Self.configuration())
        report.recordIssues()
        Self.coverage(report)
        #expect(report.programsRun > 0 || report.skippedForReplay != nil)
    }
}
