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
/// backend that runs them). Without it the suite is disabled, so the
/// default `swift test` does not run the rule suite and the programs a second time
/// (`RuleTests` and `BackendConformanceTests` already do).
@Suite(
    .serialized,
    .enabled(
        if: ProcessInfo.processInfo.environment["CONFORMANCE_MEASURE"] != nil,
        "set CONFORMANCE_MEASURE to gcd, threads, actors or reference"))
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
        let report = await Conformance.checkAll(makeBackend: makeBackend, configuration: .forCurrentTest())
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
}
