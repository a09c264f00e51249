import Conformance
import Testing

// Thin adapters from a ConformanceReport to the test frameworks. Users copy the one they need
// (docs/WRITING_A_BACKEND.md); Conformance itself imports neither framework.

extension ConformanceReport {
    /// Records every failure as a Swift Testing issue at the call site of the check.
    func recordIssues() {
        for failure in failures {
            let site = failure.callSite
            Issue.record(
                Comment(rawValue: failure.description),
                sourceLocation: SourceLocation(fileID: site.fileID, filePath: site.filePath, line: site.line, column: site.column)
            )
        }
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
