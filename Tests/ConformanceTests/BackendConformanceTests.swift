import BackendGCD
import Conformance
import TaskAPI
import Testing

/// The generated-program suite against every backend of the package, with the default budget
/// (or the CONFORMANCE_* environment variables).
@Suite(.serialized)
struct BackendConformanceTests {
    @Test func gcd() {
        let report = Conformance.check(GCDBackend(), configuration: .fromEnvironment(testFilter: "BackendConformanceTests/gcd"))
        report.recordIssues()
        #expect(report.programsRun > 0)
    }
}
