import BackendActors
import BackendGCD
import BackendThreads
import Conformance
import TaskAPI
import Testing

/// The generated-program suite against every backend of the package, with the default budget
/// (or the CONFORMANCE_* environment variables).
@Suite(.serialized)
struct BackendConformanceTests {
    static func configuration(_ test: String, knownIssues: [Rule: String] = [:]) -> ConformanceConfiguration {
        var configuration = ConformanceConfiguration.fromEnvironment(testFilter: "BackendConformanceTests/\(test)")
        configuration.knownIssues = knownIssues
        return configuration
    }

    @Test func gcd() async {
        let report = await Conformance.check(GCDBackend(), configuration: Self.configuration("gcd"))
        report.recordIssues()
        #expect(report.programsRun > 0)
    }

    @Test func threads() async {
        let report = await Conformance.check(ThreadsBackend(), configuration: Self.configuration("threads"))
        report.recordIssues()
        #expect(report.programsRun > 0)
    }

    @Test func actors() async {
        let report = await Conformance.check(ActorsBackend(), configuration: Self.configuration("actors"))
        report.recordIssues()
        #expect(report.programsRun > 0)
    }
}
