import Conformance
import Testing

// Thin adapters from a ConformanceReport to the test frameworks. Users copy the one they need
// (docs/WRITING_A_BACKEND.md); Conformance itself imports neither framework.

extension ConformanceConfiguration {
    /// The defaults and the CONFORMANCE_* variables, with replay lines that name the running
    /// Swift Testing test (`Test.current`), so that they select exactly this test.
    static func forCurrentTest() -> ConformanceConfiguration {
        guard let id = Test.current?.id else { return .fromEnvironment() }
        return .fromEnvironment(testFilter: testFilter(module: id.moduleName, path: id.nameComponents))
    }
}

extension ConformanceReport {
    /// Records every failure and error as a Swift Testing issue at the call site of the check,
    /// and the failures of known issues as (intermittent) known issues.
    func recordIssues(sourceLocation: SourceLocation = #_sourceLocation) {
        for error in errors { Issue.record(Comment(rawValue: "conformance [\(backend)]: \(error)"), sourceLocation: sourceLocation) }
        for failure in failures { failure.record() }
        for failure in knownIssues {
            withKnownIssue(Comment(rawValue: "known: \(failure.rule)"), isIntermittent: true) { failure.record() }
        }
    }
}

extension ConformanceFailure {
    func record() {
        Issue.record(
            Comment(rawValue: description),
            sourceLocation: SourceLocation(fileID: callSite.fileID, filePath: callSite.filePath, line: callSite.line, column: callSite.column)
        )
    }
}

#if canImport(XCTest)
import XCTest

extension XCTestCase {
    /// The XCTest flavour of `forCurrentTest()`: replay lines select `Module.Class/testMethod`.
    var conformanceConfiguration: ConformanceConfiguration {
        // `name` is "Class.testMethod" on Linux, "-[Class testMethod]" on Darwin.
        let method = name.split(whereSeparator: { " .[]-".contains($0) }).last.map(String.init) ?? name
        let type = String(reflecting: Self.self).split(separator: ".").map(String.init)
        return .fromEnvironment(testFilter: ConformanceConfiguration.testFilter(
            module: type.first ?? "", path: [type.dropFirst().joined(separator: "."), method]))
    }
}

/// XCTest flavour: `XCTAssertConforms(report)` fails the current test once per failure and
/// error, at the line of the assertion (XCTest takes only static file names).
func XCTAssertConforms(_ report: ConformanceReport, file: StaticString = #filePath, line: UInt = #line) {
    for error in report.errors { XCTFail("conformance [\(report.backend)]: \(error)", file: file, line: line) }
    for failure in report.failures {
        XCTFail(failure.description, file: file, line: line)
    }
}
#endif
