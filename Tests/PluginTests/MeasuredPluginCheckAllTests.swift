import Conformance
import Foundation
import Testing

/// The default `checkAll` of the plug-in backend at the default budget, run only by
/// `Tools/coverage.py --backends plugin` (`CONFORMANCE_MEASURE=plugin`): a backend written as an
/// outside author writes one keeps TaskAPI's default implementations (`TaskStateMachine`, the
/// default `value`, combinators and `run`), which the package's own backends replace, so that a
/// measure of those defaults has a backend that runs them. `PluginTests` runs the same call, with
/// a shorter budget, in the default `swift test`.
@Suite(
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["CONFORMANCE_MEASURE"] == "plugin", "set CONFORMANCE_MEASURE to plugin"))
struct MeasuredPluginCheckAllTests {
    @Test func checkAll() async {
        let configuration = ConformanceConfiguration.fromEnvironment(testFilter: "MeasuredPluginCheckAllTests")
        let report = await Conformance.checkAll(makeBackend: { PluginBackend() }, configuration: configuration)
        report.recordIssues()
        #expect(report.programsRun > 0 || report.skippedForReplay != nil, "[plugin] no program ran")
    }
}
