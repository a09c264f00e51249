import Conformance
import Testing

// The adapters a backend's own test target copies (docs/WRITING_A_BACKEND.md): Conformance
// imports no test framework; its report lists its failures as `issues` (a message and where to
// point), and an adapter only records them.

extension ConformanceReport {
    /// Swift Testing: records every issue as a failure of the running test, at the failing
    /// expectation of a rule check, at the line that called the check for a failing program, or
    /// at this call for an error of the run.
    func recordIssues(sourceLocation: SourceLocation = #_sourceLocation) {
        for issue in issues {
            let location = issue.location.map {
                SourceLocation(fileID: $0.fileID, filePath: $0.filePath, line: $0.line, column: $0.column)
            }
            Issue.record(Comment(rawValue: issue.message), sourceLocation: location ?? sourceLocation)
        }
    }
}

#if canImport(XCTest)
import XCTest

/// XCTest: fails the running test once per issue, at the line of the assertion (XCTest takes
/// only static file names; the message names the rule and where it failed).
func XCTAssertConforms(_ report: ConformanceReport, file: StaticString = #filePath, line: UInt = #line) {
    for issue in report.issues {
        XCTFail(issue.message, file: file, line: line)
    }
}
#endif
