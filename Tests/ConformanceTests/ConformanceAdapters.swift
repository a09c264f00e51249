import Conformance
import Testing

// Thin adapters from a ConformanceReport to the test frameworks. Users copy the one they need
// (docs/WRITING_A_BACKEND.md); Conformance itself imports neither framework.

extension ConformanceReport {
    /// Records every failure as a Swift Testing issue at the call site of the check, and the
    /// failures of known issues as (intermittent) known issues.
    func recordIssues() {
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

/// XCTest flavour: `XCTAssertConforms(report)` fails the current test once per failure, at the
/// line of the assertion (XCTest takes only static file names).
func XCTAssertConforms(_ report: ConformanceReport, file: StaticString = #filePath, line: UInt = #line) {
    for failure in report.failures {
        XCTFail(failure.description, file: file, line: line)
    }
}
#endif
