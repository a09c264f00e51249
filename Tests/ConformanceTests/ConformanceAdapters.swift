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
        for issue in issues { issue.record(at: sourceLocation) }
        for issue in knownIssuesToRecord {
            withKnownIssue(Comment(rawValue: "known: \(issue.rule ?? "?")"), isIntermittent: true) { issue.record(at: sourceLocation) }
        }
    }
}

extension ConformanceIssue {
    /// Records this issue where it points (the failing program's check call, a rule check's
    /// failing expectation), or at `sourceLocation` for an error of the run.
    func record(at sourceLocation: SourceLocation) {
        let location = self.location.map { SourceLocation(fileID: $0.fileID, filePath: $0.filePath, line: $0.line, column: $0.column) }
        Issue.record(Comment(rawValue: message), sourceLocation: location ?? sourceLocation)
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
        return .fromEnvironment(
            testFilter: ConformanceConfiguration.testFilter(
                module: type.first ?? "", path: [type.dropFirst().joined(separator: "."), method]))
    }
}

/// XCTest flavour: `XCTAssertConforms(report)` fails the current test once per failure and
/// error, at the line of the assertion (XCTest takes only static file names).
func XCTAssertConforms(_ report: ConformanceReport, file: StaticString = #filePath, line: UInt = #line) {
    for issue in report.issues {
        XCTFail(issue.message, file: file, line: line)
    }
}
#endif
