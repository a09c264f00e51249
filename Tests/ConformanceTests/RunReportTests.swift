import Conformance
import Dispatch
import ScheduleKit
import TaskAPI
import Testing

/// A run that keeps going and says where it is (issue 22, point 6): each distinct rule broken is
/// reported with a failing program of its own; the rule suite prints its progress, bounds each
/// check and the whole run, and takes known issues as the programs do.
@Suite struct RunReportTests {
    /// The reference backend whose `whenAll` collects in completion order (C5.1) and whose
    /// `race([])` is cancelled instead of failing (C5.3): two bugs, two rules.
    struct TwoBugsBackend: TaskBackend {
        let base = ReferenceBackend(.whenAllCompletionOrder)
        var name: String { "two-bugs" }
        var defaultExecutor: any AsyncTaskExecutor { base.defaultExecutor }
        var inlineExecutor: any AsyncTaskExecutor { base.inlineExecutor }
        func makeSerialExecutor(label: String) -> any AsyncTaskExecutor { base.makeSerialExecutor(label: label) }
        func makeSource<T: Sendable>(of type: T.Type) -> any CompletionSource<T> { base.makeSource(of: type) }
        func makeCancellationSource() -> any CancellationSource { base.makeCancellationSource() }
        func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable { base.schedule(after: delay, job) }
        func run<T: Sendable>(
            on executor: any AsyncTaskExecutor, token: CancellationToken, _ body: @escaping @Sendable (CancellationToken) throws -> T
        ) -> any AsyncTask<T> {
            base.run(on: executor, token: token, body)
        }
        func whenAll<T: Sendable>(_ tasks: [any AsyncTask<T>]) -> any AsyncTask<[T]> { base.whenAll(tasks) }
        func race<T: Sendable>(_ tasks: [any AsyncTask<T>]) -> any AsyncTask<T> {
            tasks.isEmpty ? base.cancelled() : base.race(tasks)
        }
    }

    static func configuration(programs: Int) -> ConformanceConfiguration {
        var configuration = ConformanceConfiguration(baseSeed: 7, programs: programs, output: { _ in })
        configuration.resourceLinks = 0
        configuration.mode = .controlled(.randomWalk)
        configuration.shrinkTimeBudget = .seconds(1)
        return configuration
    }

    @Test("a run reports each distinct rule broken, one failing program per rule, and counts the repeats")
    func eachRuleBrokenIsReported() async throws {
        let report = await Conformance.check(makeBackend: { TwoBugsBackend() }, configuration: Self.configuration(programs: 400))
        #expect(Set(report.brokenRules) == [.c5_1, .c5_3], "\(report)")
        #expect(report.failingPrograms == 2)
        for rule in [Rule.c5_1, .c5_3] {
            let failure = try #require(report.failures.first { $0.rule == rule })
            #expect(failure.shrunkProgram != nil, "\(rule)'s program is shrunk")
        }
        let lastFailure = report.failures.map { Int($0.seed - 7) }.max() ?? 0
        #expect(
            report.programsRun > lastFailure + 1 && report.stoppedBy?.contains("maxFailingPrograms") != true,
            "a failure does not stop the run: \(report.programsRun) programs, the last failing one #\(lastFailure)")
        #expect(!report.repeatedFailures.isEmpty && report.description.contains("broken again by later programs"), "\(report)")
        #expect(report.description.contains("2 rules broken in 2 failing programs (C5.1 C5.3)"), "\(report)")

        var first = Self.configuration(programs: 400)
        first.maxFailingPrograms = 1
        let stopped = await Conformance.check(makeBackend: { TwoBugsBackend() }, configuration: first)
        #expect(stopped.failingPrograms == 1 && stopped.programsRun < 400 && stopped.stoppedBy?.contains("maxFailingPrograms") == true)
    }

    /// A backend catching up on newer rules lists them as known issues: the rule suite's failures
    /// of those rules are known issues too, and the report passes.
    @Test("knownIssues covers the rule suite's failures")
    func knownIssuesCoverTheRuleSuite() async {
        var configuration = Self.configuration(programs: 0)
        // The reference backend answers isCurrent (C9.7) since issue 22's programs check it; it
        // has no actor executors, so C9.10's pinned-actor checks cannot run either.
        configuration.knownIssues = [
            .c9_6: "runAsync on our own threads: later", .c9_9: "actor executors: later",
            .c9_10: "pinned actors need actor executors: later"
        ]
        let report = await Conformance.checkAll(
            makeBackend: { ReferenceBackend() }, configuration: configuration,
            rules: RuleSuite.checks(chapter: 9))
        #expect(report.passed, "\(report)")
        #expect(report.ruleSuite?.failures.isEmpty == true && report.ruleSuite?.knownIssues.count == 4)
        #expect(report.knownIssuesToRecord.count == 4 && report.issues.isEmpty)
        #expect(report.ruleSuite?.description.contains("4 known issues (C9.6 C9.9 C9.10)") == true, "\(report)")
    }

    /// A progress line per chapter as the suite goes; a check over its time limit is a failure
    /// naming it, and the suite goes on; once the whole run's time limit is out, no check starts
    /// and the report says which did not run.
    @Test("the rule suite prints its progress, bounds each check and the whole run")
    func ruleSuiteProgressAndTimeLimits() async {
        let lines = Locked<[String]>([])
        var configuration = Self.configuration(programs: 0)
        configuration.output = { line in lines.withLock { $0.append(line) } }
        // Long enough for the C3 checks on a loaded machine (or under the thread sanitizer): 1 s
        // was not, once.
        configuration.ruleTimeLimit = .seconds(5)
        let release = DispatchSemaphore(value: 0)
        let hanging = RuleCheck(.c6_1, "a wait that never returns") { _ in release.wait() }
        let checks = [hanging] + RuleSuite.checks(chapter: 3)
        let report = await RuleSuite.run(ReferenceBackend(), checks: checks, configuration: configuration)
        #expect(
            report.failures.map(\.rule) == [.c6_1] && report.failures.first?.message.contains("a wait that never returns") == true,
            "\(report.failures)")
        #expect(report.checks.count == checks.count, "the suite went on after the hung check")
        let printed = lines.withLock { $0 }
        #expect(
            printed.first?.hasPrefix("rule suite [reference]: \(checks.count) checks of 4 rules, each within 5.0 s") == true, "\(printed)")
        #expect(
            printed.contains { $0.hasPrefix("rule suite [reference]: C6 waiting: 1 check in") && $0.hasSuffix("1 failure (C6.1)") },
            "\(printed)")
        #expect(printed.contains { $0.hasPrefix("rule suite [reference]: C3 errors: 4 checks in") && $0.hasSuffix("passed") }, "\(printed)")

        configuration.timeLimit = .milliseconds(100)
        let cut = await RuleSuite.run(ReferenceBackend(), checks: checks, configuration: configuration)
        release.signal()
        release.signal()
        #expect(cut.checks.count == 1 && cut.notRun.count == 4 && !cut.passed)
        #expect(cut.notRunError?.contains("4 rule checks started: C3.1 C3.2 C3.3") == true, "\(cut)")
        #expect(cut.issues.contains { $0.rule == nil && $0.message.contains("time limit ran out") })
    }

    @Test("the new variables parse, and bad values are errors")
    func newVariablesParse() {
        let parsed = ConformanceConfiguration.fromEnvironment(environment: [
            "CONFORMANCE_MAX_FAILURES": "3", "CONFORMANCE_RULE_TIME_LIMIT": "2.5", "CONFORMANCE_TIME_LIMIT": "900",
            "CONFORMANCE_REPLAY_ATTEMPTS": "4"
        ])
        #expect(parsed.replayAttempts == 4)
        #expect(parsed.environmentErrors.isEmpty, "\(parsed.environmentErrors)")
        #expect(parsed.maxFailingPrograms == 3 && parsed.ruleTimeLimit == .milliseconds(2500) && parsed.effectiveTimeLimit == .seconds(900))
        #expect(ConformanceConfiguration().effectiveTimeLimit == .seconds(660), "the time budget plus 10 minutes")
        for (name, value) in [
            ("CONFORMANCE_MAX_FAILURES", "0"), ("CONFORMANCE_RULE_TIME_LIMIT", "-1"), ("CONFORMANCE_TIME_LIMIT", "soon"),
            ("CONFORMANCE_REPLAY_ATTEMPTS", "0")
        ] {
            let configuration = ConformanceConfiguration.fromEnvironment(environment: [name: value])
            #expect(configuration.environmentErrors.contains { $0.hasPrefix("\(name)=\(value)") }, "\(name)=\(value)")
        }
    }
}
