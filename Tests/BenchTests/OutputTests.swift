import Foundation
import Testing

@testable import bench

@Suite struct FormattingTests {
    @Test func fourSignificantDigitsWithoutFloatNoise() {
        #expect(plainSignificant(1.9380000000000002) == "1.938")
        #expect(plainSignificant(2_283_412.7) == "2283000")
        #expect(plainSignificant(128) == "128")
        #expect(plainSignificant(0.000123456) == "0.0001235")
        #expect(plainSignificant(-46_213) == "-46210")
        #expect(formatNumber(2_283_412.7) == "2.283M")
        #expect(formatNumber(12_345) == "12.35k")
        #expect(formatNumber(423.44) == "423.4")
        #expect(formatNumber(.nan) == "n/a")
    }

    @Test func csvNumbersHaveAtMostFourSignificantDigits() {
        var report = Fixture.chainReport()
        report.results[1].values = [401.23456, 1.9380000000000002]
        let csv = renderCSV(report)
        #expect(!csv.contains("0000000"))
        for line in csv.split(separator: "\n").dropFirst() {
            for field in line.split(separator: ",") {
                guard let value = Double(field), value != 0 else { continue }
                let digits = field.filter(\.isNumber).drop { $0 == "0" }
                #expect(digits.count <= 4, "\(field) in \(line)")
            }
        }
    }

    @Test func noIssueNumbersInTheOutput() {
        var report = Fixture.chainReport()
        report.aims = [AimResult(aim: "inline chain <= 100 ns/link", subject: "gcd", met: false, detail: "x")]
        for format in OutputFormat.allCases {
            #expect(!render(report, as: format).contains("issue #"))
        }
    }
}

@Suite struct OutputPathTests {
    let directory = FileManager.default.temporaryDirectory.path

    @Test func badPathsAreRefusedBeforeMeasuring() {
        #expect(outputPathProblem("/nonexistent-dir-for-bench/x.json")?.contains("does not exist") == true)
        #expect(outputPathProblem(directory)?.contains("is a directory") == true)
        #expect(outputPathProblem("") != nil)
        #expect(outputPathProblem("\(directory)/bench-test-\(getpid()).json") == nil)
        var options = Options(backends: ["gcd"], scenarios: ["chain"])
        options.output = "\(directory)/same.json"
        options.svg = "\(directory)/same.json"
        #expect(outputProblem(options)?.contains("same file") == true)
    }

    @Test func aBadPathExitsTwoWithoutMeasuring() {
        var options = Options(backends: ["gcd"], scenarios: ["chain"])
        options.svg = "/nonexistent-dir-for-bench/chart.svg"
        let start = monotonicNanos()
        #expect(runBenchmark(options) == 2)
        // Measuring the chain scenario takes seconds; refusing takes nothing.
        #expect(Double(monotonicNanos() - start) / 1e9 < 0.5)
    }
}

@Suite struct OptionTests {
    let backends = ["gcd", "threads", "actors"]
    let scenarios = ["hop", "chain"]

    @Test func instructionsAndShowSVGParse() throws {
        guard
            case .run(let options) = try parseCommand(
                ["--quick", "--instructions"], backends: backends,
                scenarios: scenarios)
        else {
            Issue.record("not a run")
            return
        }
        #expect(options.instructions && options.quick)
        let show = try parseCommand(["show", "r.json", "--svg", "r.svg"], backends: backends, scenarios: scenarios)
        #expect(show == .show(path: "r.json", format: .table, svg: "r.svg"))
    }

    @Test("--rounds takes 5 to 99 rounds; fewer, more or a non-number is a usage error")
    func roundsParse() throws {
        guard case .run(let options) = try parseCommand(["--rounds", "11"], backends: backends, scenarios: scenarios) else {
            Issue.record("not a run")
            return
        }
        #expect(options.rounds == 11)
        guard case .run(let defaults) = try parseCommand([], backends: backends, scenarios: scenarios) else {
            Issue.record("not a run")
            return
        }
        #expect(defaults.rounds == nil)
        for bad in ["4", "100", "x", "-1"] {
            #expect(throws: UsageError.self, "\(bad)") {
                try parseCommand(["--rounds", bad], backends: backends, scenarios: scenarios)
            }
        }
    }

    @Test func unknownFlagsAreUsageErrors() {
        #expect(throws: UsageError.self) { try parseCommand(["--bogus"], backends: backends, scenarios: scenarios) }
        #expect(throws: UsageError.self) { try parseCommand(["--output"], backends: backends, scenarios: scenarios) }
    }
}
