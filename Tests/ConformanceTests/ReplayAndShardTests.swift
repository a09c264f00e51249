import Conformance
import Foundation
import ScheduleKit
import TaskAPI
import Testing

/// Replay lines select the test that is running and reproduce on any machine; a replay that
/// runs nothing fails; shards split the seed space without overlap (issue #15.2, issue #14.5).
@Suite struct ReplayAndShardTests {
    /// The environment a replay line sets, read back from the line.
    static func environment(of line: String) -> [String: String] {
        var environment: [String: String] = [:]
        for word in line.split(separator: " ").prefix(while: { $0 != "swift" }) where word.contains("=") {
            let parts = word.split(separator: "=", maxSplits: 1).map(String.init)
            environment[parts[0]] = parts[1]
        }
        return environment
    }

    @Test func replayFilterSelectsExactlyTheRunningTest() throws {
        let id = try #require(Test.current?.id)
        let configuration = ConformanceConfiguration.forCurrentTest()
        let filter = try Regex(configuration.testFilter)
        // Swift Testing matches `--filter` against "Module.Suite/function()".
        let name = "\(id.moduleName).\(id.nameComponents.joined(separator: "/"))"
        #expect(name.contains(filter), "\(configuration.testFilter) does not select \(name)")
        #expect(!"\(name.dropLast(2))Again()".contains(filter), "the filter must not select a longer name")
        let line = Conformance.replayLine(seed: 1, filter: configuration.testFilter, backend: "gcd")
        #expect(line.hasSuffix("swift test --filter '\(configuration.testFilter)'"))
    }

    @Test func aReplayThatRunsNoProgramFails() async {
        var replay = ConformanceConfiguration.fromEnvironment(environment: [
            "CONFORMANCE_REPLAY": "reference", "CONFORMANCE_SEED": "5", "CONFORMANCE_PROGRAMS": "0"
        ])
        replay.output = { _ in }
        let none = await Conformance.check(ReferenceBackend(), configuration: replay)
        #expect(!none.passed && none.errors.contains { $0.contains("ran no program") }, "\(none)")

        var noSeed = ConformanceConfiguration.fromEnvironment(environment: ["CONFORMANCE_REPLAY": "reference"])
        noSeed.output = { _ in }
        let unseeded = await Conformance.check(ReferenceBackend(), configuration: noSeed)
        #expect(!unseeded.passed && unseeded.programsRun == 0 && unseeded.errors.contains { $0.contains("needs CONFORMANCE_SEED") })

        var other = ConformanceConfiguration.fromEnvironment(environment: ["CONFORMANCE_REPLAY": "gcd", "CONFORMANCE_SEED": "5"])
        other.output = { _ in }
        let skipped = await Conformance.check(ReferenceBackend(), configuration: other)
        #expect(skipped.skippedForReplay == "gcd" && skipped.programsRun == 0 && skipped.passed)
    }

    /// A replay whose backend no check of the process has: the process fails at exit, loudly.
    @Test func aReplayThatReachesNoCheckOfItsBackendFailsTheProcess() async {
        let result = await #expect(processExitsWith: .exitCode(1), observing: [\.standardErrorContent]) {
            setenv("CONFORMANCE_REPLAY", "no-such-backend", 1)
            var configuration = ConformanceConfiguration.fromEnvironment(environment: [
                "CONFORMANCE_REPLAY": "no-such-backend", "CONFORMANCE_SEED": "5"
            ])
            configuration.output = { _ in }
            let report = await Conformance.check(ReferenceBackend(), configuration: configuration)
            exit(report.skippedForReplay == "no-such-backend" ? 0 : 2)
        }
        let stderr = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(stderr.contains("CONFORMANCE_REPLAY=no-such-backend but no check of a backend named"), "\(stderr)")
    }

    @Test func environmentValuesThatDoNotParseAreErrors() async {
        for (name, value) in [
            ("CONFORMANCE_SEED", "abc"), ("CONFORMANCE_PROGRAMS", "-3"), ("CONFORMANCE_MODE", "fast"),
            ("CONFORMANCE_SHARD", "3/2"), ("CONFORMANCE_SHARD", "0/4"), ("CONFORMANCE_TIME_BUDGET", "x"),
            ("CONFORMANCE_TIME_BUDGET", "1e300"), ("CONFORMANCE_TIMING_SLACK", "soon"),
            ("CONFORMANCE_TIMING_SLACK", "0"), ("CONFORMANCE_EVENTS", "yes"), ("CONFORMANCE_STACK_LINKS", "-1"),
            ("CONFORMANCE_SHRINK", "nan")
        ] {
            var environment = ["CONFORMANCE_SEED": "1"]
            environment[name] = value
            var configuration = ConformanceConfiguration.fromEnvironment(environment: environment)
            configuration.output = { _ in }
            #expect(configuration.environmentErrors.contains { $0.hasPrefix("\(name)=\(value)") }, "\(name)=\(value)")
            let report = await Conformance.check(ReferenceBackend(), configuration: configuration)
            #expect(!report.passed && report.programsRun == 0)
        }
        // Parsed once, sub-second parts kept: the configuration is the one source of every setting.
        let parsed = ConformanceConfiguration.fromEnvironment(environment: [
            "CONFORMANCE_TIMING_SLACK": "0.25", "CONFORMANCE_TIME_BUDGET": "1.5", "CONFORMANCE_SHRINK": "0", "CONFORMANCE_EVENTS": "1"
        ])
        #expect(parsed.environmentErrors.isEmpty, "\(parsed.environmentErrors)")
        #expect(parsed.timingSlack == .milliseconds(250) && parsed.timeBudget == .milliseconds(1500))
        #expect(parsed.shrinkTimeBudget == .zero && parsed.showsEvents)
        let unseeded = ConformanceConfiguration.fromEnvironment(environment: ["CONFORMANCE_SHARD": "1/2"])
        #expect(unseeded.environmentErrors.contains { $0.contains("CONFORMANCE_SHARD needs CONFORMANCE_SEED") })
    }

    @Test func shardsAreDisjointAndCoverTheSeedSpace() throws {
        #expect(Shard("2/7") == Shard(index: 2, count: 7))
        #expect(Shard("0/7") == nil && Shard("8/7") == nil && Shard("2") == nil && Shard("a/b") == nil)
        for count in [1, 2, 3, 7] {
            var seen: Set<UInt64> = []
            var total = 0
            for index in 1...count {
                let configuration = ConformanceConfiguration.fromEnvironment(environment: [
                    "CONFORMANCE_SHARD": "\(index)/\(count)", "CONFORMANCE_SEED": "\(UInt64.max - 40)", "CONFORMANCE_PROGRAMS": "50"
                ])
                #expect(configuration.environmentErrors.isEmpty)
                let seeds = configuration.programIndices.map { configuration.baseSeed &+ UInt64($0) }
                #expect(seeds.count == 50)
                total += seeds.count
                seen.formUnion(seeds)
            }
            #expect(seen.count == total, "shards of \(count) overlap")
            #expect(seen == Set((0..<UInt64(50 * count)).map { UInt64.max - 40 &+ $0 }))
        }
    }

    /// A failure found by shard 2 of 3 prints a replay line that, run as its environment says
    /// and with no shard, runs that one program and finds the same rule broken.
    @Test func aReplayLineFromAShardReproduces() async throws {
        let lines = Locked<[String]>([])
        var configuration = ConformanceConfiguration.fromEnvironment(environment: [
            "CONFORMANCE_SHARD": "2/3", "CONFORMANCE_SEED": "1000", "CONFORMANCE_PROGRAMS": "100",
            "CONFORMANCE_MODE": "controlled", "CONFORMANCE_SHRINK": "0"
        ])
        configuration.resourceLinks = 0
        configuration.output = { line in lines.withLock { $0.append(line) } }
        let report = await Conformance.check(ReferenceBackend(.lifoContinuations), configuration: configuration)
        #expect(lines.withLock { $0 }.first?.contains("shard 2/3") == true)
        #expect(report.description.contains("shard 2/3"))
        let failure = try #require(report.failures.first, "shard 2/3 did not catch the LIFO mutant in 100 programs")
        #expect((1100..<1200).contains(failure.seed), "shard 2/3 ran seed \(failure.seed)")
        let environment = Self.environment(of: failure.replay)
        #expect(environment["CONFORMANCE_SHARD"] == nil)
        var replay = ConformanceConfiguration.fromEnvironment(environment: environment)
        replay.resourceLinks = 0
        replay.shrinkTimeBudget = .zero
        replay.output = { _ in }
        let again = await Conformance.check(ReferenceBackend(.lifoContinuations), configuration: replay)
        #expect(again.programsRun == 1)
        #expect(again.failures.first?.seed == failure.seed)
        #expect(again.failures.first?.rule == failure.rule)
    }
}

#if canImport(XCTest)
import XCTest

/// The XCTest adapter's replay filter selects the running XCTest method (issue #15.2).
final class XCTestReplayFilterTests: XCTestCase {
    func testReplayFilterSelectsThisTest() throws {
        let filter = conformanceConfiguration.testFilter
        XCTAssertTrue("ConformanceTests.XCTestReplayFilterTests/testReplayFilterSelectsThisTest".contains(try Regex(filter)), filter)
        XCTAssertFalse("ConformanceTests.XCTestReplayFilterTests/testReplayFilterSelectsThis".contains(try Regex(filter)), filter)
    }
}
#endif
