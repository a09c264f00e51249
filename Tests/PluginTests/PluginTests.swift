import Conformance
import Foundation
import TaskAPI
import Testing

/// The plug-in path: a backend in a target that depends on TaskAPI and Conformance only, checked
/// against the whole contract by the one call, as a user's package checks theirs.
@Suite("Plug-in backend")
struct PluginTests {
    /// The budget of the one call here, unless CONFORMANCE_* variables say otherwise: 15 s of
    /// generated programs (the package's own backends get 60 s in ConformanceTests), after the
    /// resource checks at 20,000 links at most, which on a 512 KiB stack still overflow at once if
    /// a chain recurses. The contract's 1,000,000 take a minute here, most of it the
    /// default-executor chain handing each link to another thread (they pass: run
    /// `Conformance.checkResources(PluginBackend())` to see); RuleTests runs them at that size for
    /// the package's own backends.
    static func configuration() -> ConformanceConfiguration {
        let environment = ProcessInfo.processInfo.environment
        var configuration = ConformanceConfiguration.fromEnvironment(testFilter: "PluginTests")
        if environment["CONFORMANCE_TIME_BUDGET"] == nil { configuration.timeBudget = .seconds(15) }
        configuration.resourceLinks = min(configuration.resourceLinks, 20_000)
        return configuration
    }

    @Test("A backend from outside passes the rule suite, the resource checks and generated programs in one call")
    func pluginBackendConforms() async {
        // A fresh backend for each program: no state crosses programs, and replays meet it new.
        let report = await Conformance.checkAll(makeBackend: { PluginBackend() }, configuration: Self.configuration())
        report.recordIssues()
        if report.skippedForReplay == nil {
            #expect(report.ruleSuite?.checks.count == RuleSuite.checks.count, "the whole rule suite ran")
            #expect(report.programsRun > 0)
        }
    }
}

#if canImport(XCTest)
import XCTest

/// The XCTest adapter at work, on one chapter of the rule suite and no programs (the full run is
/// the Swift Testing test above; the suite is not run twice).
final class PluginXCTests: XCTestCase {
    func testErrorsChapterThroughXCTest() {
        var configuration = ConformanceConfiguration.fromEnvironment(testFilter: "PluginTests")
        configuration.programs = 0
        configuration.resourceLinks = 0
        let report = Conformance.checkAll(PluginBackend(), configuration: configuration, rules: RuleSuite.checks(chapter: 3))
        XCTAssertConforms(report)
        XCTAssertEqual(report.ruleSuite?.rules, [.c3_1, .c3_2, .c3_3])
    }
}
#endif
