import Conformance
import Foundation
import TaskAPI
import Testing

/// The plug-in path: a backend in a target that depends on TaskAPI and Conformance only, checked
/// against the whole contract by the one call, as a user's package checks theirs.
@Suite("Plug-in backend")
struct PluginTests {
    /// The budget of the one call here, unless CONFORMANCE_* variables say otherwise: the
    /// generated programs for 15 s (the package's own backends get 60 s in ConformanceTests), and
    /// the resource checks at 100,000 links, which on a 512 KiB stack still overflow at once if
    /// a chain recurses (the contract's 1,000,000 run in RuleTests' child processes for the
    /// package's backends: `CONFORMANCE_STACK_LINKS=1000000` runs them here).
    static func configuration() -> ConformanceConfiguration {
        let environment = ProcessInfo.processInfo.environment
        var configuration = ConformanceConfiguration.fromEnvironment(testFilter: "PluginTests")
        if environment["CONFORMANCE_TIME_BUDGET"] == nil { configuration.timeBudget = .seconds(15) }
        if environment["CONFORMANCE_STACK_LINKS"] == nil { configuration.resourceLinks = 100_000 }
        return configuration
    }

    @Test("A backend from outside passes the rule suite, the resource checks and generated programs in one call")
    func pluginBackendConforms() async {
        let report = await Conformance.checkAll(PluginBackend(), configuration: Self.configuration())
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
        XCTAssertEqual(report.ruleSuite?.rules, ["C3.1", "C3.2", "C3.3"])
    }
}
#endif
