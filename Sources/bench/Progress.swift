import Foundation

/// Progress lines on standard error, so that standard output stays a clean report.
enum Progress {
    static let start = monotonicNanos()

    static func note(_ message: String) {
        let origin = start
        let elapsed = Double(monotonicNanos() &- origin) / 1e9
        FileHandle.standardError.write(Data((String(format: "[%6.1fs] ", elapsed) + message + "\n").utf8))
    }
}

/// Writes `text` to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
