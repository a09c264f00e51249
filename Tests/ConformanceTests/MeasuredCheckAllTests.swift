import BackendActors
import BackendGCD
import BackendThreads
import Conformance
import Foundation
import TaskAPI
import Testing

/// The default `checkAll` (rule suite, resource checks, generated programs) of one backend, run
/// only by the measuring tools: `Tools/coverage.py` (what the conformance runs alone reach of the
/// code under test) and `Tools/mutation` (which planted mutants they kill). `CONFORMANCE_MEASURE`
/// names the backend: `gcd`, `threads`, `actors`, or `reference` (this target's `ReferenceBackend`,
/// which keeps the defaults the package's backends replace: TaskAPI's `TaskStateMachine`, the
/// default `value`, `runAsync` and combinators, so that a measure of those defaults has a
/// backend that runs them; `plugin` is PluginTests' `MeasuredPluginCheckAllTests`). Without it the suite is disabled, so the
/// default `swift test` does not run the rule suite and the programs a second time
/// (`RuleTests` and `BackendConformanceTests` already do). The rule suite also runs on the
/// backend under its constructor's parameters at their limits (`atTheLimits`, the same
/// configurations as `BackendConformanceTests.atTheLimits`), so a measure covers the code of the
/// configurations a user may choose, not only the default one.
@Suite(
    .serialized,
    .enabled(
        if: ProcessInfo.processInfo.environment["CONFORMANCE_MEASURE"].map { $0 != "plugin" } ?? false,
        "set CONFORMANCE_MEASURE to gcd, threads, actors or reference (plugin: MeasuredPluginCheckAllTests)"))
struct MeasuredCheckAllTests {
    static var backendName: String? { ProcessInfo.processInfo.environment["CONFORMANCE_MEASURE"] }

    /// The backend `name` names: the same constructors as `BackendConformanceTests`, and the reference.
    static func makeBackend(named name: String) -> (@Sendable () -> any TaskBackend)? {
        switch name {
        case "gcd": return { GCDBackend() }
        case "threads": return { ThreadsBackend() }
        case "actors": return { ActorsBackendTesting.ownPool() }
        case "reference": return { ReferenceBackend() }
        default: return nil
        }
    }

    /// Fails with every finding of the check (a mutant is killed when this test fails), and on a
    /// backend name it does not know.
    @Test func checkAll() async throws {
        let name = try #require(Self.backendName)
        let makeBackend = try #require(Self.makeBackend(named: name), "CONFORMANCE_MEASURE=\(name): not gcd, threads, actors or reference")
        var configuration = ConformanceConfiguration.forCurrentTest()
        if name == "reference" { configuration.knownIssues = Self.referenceGaps }
        let report = await Conformance.checkAll(
            makeBackend: makeBackend, configuration: configuration,
            rules: RuleSuite.checks + [RuleSuite.beyondTheDefaultBound] + Self.ownExecutorChecks(of: name))
        report.recordIssues()
        #expect(report.programsRun > 0 || report.skippedForReplay != nil, "[\(name)] no program ran")
        // The configurations class: the backend built at its limits (bounds 1 and 16, the threads
        // backend with one worker), as BackendConformanceTests and BlockingLimitTests build it.
        for limit in [1, 16] {
            guard let (width, make) = try Self.atTheLimit(named: name, maxBlockedThreads: limit) else { continue }
            let bound = RuleSuite.blockedThreadsBound(width: width, maxBlockedThreads: limit)
            let failures = await RuleSuite.run(bound, on: make)
            print("[\(name) at maxBlockedThreads \(limit)] \(bound): \(failures.isEmpty ? "passed" : "\(failures.count) failures")")
            for failure in failures { Issue.record("[\(name) at its limits] \(failure)") }
        }
    }

    /// The backend `name` names built with `maxBlockedThreads` (the threads backend with one
    /// worker), and its width: the threads it runs bodies on when none is blocked. `nil` for the
    /// reference backend, which has no such parameter.
    static func atTheLimit(named name: String, maxBlockedThreads limit: Int) throws -> (Int, any TaskBackend)? {
        switch name {
        case "gcd": return (ThreadsBackend.processorCount, try GCDBackend(maxBlockedThreads: limit))
        case "threads": return (1, try ThreadsBackend(workers: 1, maxBlockedThreads: limit))
        case "actors": return (max(2, ThreadsBackend.processorCount), try ActorsBackend(maxBlockedThreads: limit))
        default: return nil
        }
    }

    /// The checks of the executors a backend ships beside the contract's three (BackendGCD's
    /// `DispatchQueueExecutor`), as `BackendConformanceTests.ownExecutors` runs them.
    static func ownExecutorChecks(of name: String) -> [RuleCheck] {
        name == "gcd"
            ? [BackendConformanceTests.dispatchQueueExecutorCheck, BackendConformanceTests.concurrentDispatchQueueExecutorCheck] : []
    }

    /// The rules the reference backend does not implement (it is the programs' model, not a
    /// product): its rule suite's failures of them are known issues, so a measure that runs it
    /// passes when everything else does.
    static let referenceGap = "not implemented by the reference backend, the programs' model (not a product)"
    static let referenceGaps: [Rule: String] = [
        .c9_6: referenceGap, .c9_9: referenceGap, .c9_10: referenceGap
    ]

    /// Constructors `makeBackend` does not use: `ActorsBackend()`, on the pool every such
    /// backend shares (the measure's `checkAll` gives each program a pool of its own, as
    /// `BackendConformanceTests` does).
    static let otherConstructors: [(name: String, make: @Sendable () throws -> any TaskBackend)] = [
        ("actors() (the shared pool)", { ActorsBackend() })
    ]

    /// The rule suite on the measured backend built with each of its limit configurations
    /// (`BackendConformanceTests.limitConfigurations` whose name starts with the backend's) and
    /// its `otherConstructors`.
    @Test func atTheLimits() async throws {
        let name = try #require(Self.backendName)
        let configurations = BackendConformanceTests.limitConfigurations + Self.otherConstructors
        for (configuration, make) in configurations where configuration.hasPrefix(name + "(") {
            let report = await RuleSuite.run(try make())
            for failure in report.failures { Issue.record("[\(configuration)] \(failure)") }
            #expect(!report.checks.isEmpty, "[\(configuration)] no rule check ran")
        }
    }
}
