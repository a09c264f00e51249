import Dispatch
import TaskAPI

/// One run of the rule suite against a backend: the checks one after the other, each within its
/// time limit (one still running then is a failure naming it, and the suite goes on), a progress
/// line per chapter and one for a check still running after `slowCheck` on `output`, failures of
/// known issues set apart, and no check started once `deadline` passed.
struct RuleSuiteSession {
    let backend: any TaskBackend
    let checks: [RuleCheck]
    var timingSlack: Duration
    var checkLimit = RuleSuite.timeLimit
    var knownIssues: [Rule: String] = [:]
    var output: (@Sendable (String) -> Void)?
    var deadline = Uptime.distantFuture
    let callSite: CallSite

    /// A check still running this long is announced (once), so a slow suite is never silent.
    static let slowCheck: Duration = .seconds(10)

    init(backend: any TaskBackend, checks: [RuleCheck], timingSlack: Duration, callSite: CallSite) {
        self.backend = backend
        self.checks = checks
        self.timingSlack = timingSlack
        self.callSite = callSite
    }

    init(backend: any TaskBackend, checks: [RuleCheck], configuration: ConformanceConfiguration, callSite: CallSite) {
        self.init(backend: backend, checks: checks, timingSlack: configuration.timingSlack, callSite: callSite)
        checkLimit = configuration.ruleTimeLimit
        knownIssues = configuration.knownIssues
        output = configuration.output
        deadline = configuration.deadline ?? Uptime.now + configuration.effectiveTimeLimit
    }

    func run() -> RuleSuiteReport {
        let began = Uptime.now
        var report = RuleSuiteReport(backend: backend.name, checks: [], failures: [], duration: .zero)
        say(
            "\(checks.count) checks of \(RuleSuiteReport.rules(of: checks).count) rules, each within \(RuleSuiteReport.short(checkLimit))"
                + (deadline == .distantFuture ? "" : ", all within \(RuleSuiteReport.short(deadline - began))"))
        var chapters: [Int] = []
        for check in checks where !chapters.contains(check.chapter) { chapters.append(check.chapter) }
        for chapter in chapters {
            let start = Uptime.now
            var part = RuleSuiteReport(backend: backend.name, checks: [], failures: [], duration: .zero)
            for check in checks where check.chapter == chapter {
                if deadline.hasPassed {
                    part.notRun.append(check)
                    continue
                }
                part.checks.append(check)
                for failure in runOne(check) {
                    if knownIssues[failure.rule] != nil {
                        part.knownIssues.append(failure)
                    } else {
                        part.failures.append(failure)
                    }
                }
            }
            say(part.chapterLine(chapter, in: Uptime.now - start))
            report.checks += part.checks
            report.failures += part.failures
            report.knownIssues += part.knownIssues
            report.notRun += part.notRun
        }
        report.duration = Uptime.now - began
        return report
    }

    /// One check on a thread (or Swift task) of its own, within `checkLimit`; announced once if
    /// it is still running after `slowCheck`.
    private func runOne(_ check: RuleCheck) -> [RuleFailure] {
        let context = RuleContext(backend: backend, check: check, callSite: callSite, timingSlack: timingSlack)
        let done = DispatchSemaphore(value: 0)
        RuleSuite.start(check, context) { done.signal() }
        let limit = Uptime.now + checkLimit
        var finished = done.wait(timeout: min(limit, Uptime.now + Self.slowCheck).dispatchTime) == .success
        if !finished, !limit.hasPassed {
            say("\(check): still running after \(RuleSuiteReport.short(Self.slowCheck)) (limit \(RuleSuiteReport.short(checkLimit)))")
            finished = done.wait(timeout: limit.dispatchTime) == .success
        }
        return RuleSuite.outcome(context, finished: finished, timeLimit: checkLimit)
    }

    private func say(_ line: String) {
        output?("rule suite [\(backend.name)]: \(line)")
    }
}

extension RuleSuiteReport {
    /// The names of the chapters, for the progress lines.
    static let chapterTitles = [
        1: "outcome", 2: "continuations", 3: "errors", 4: "cancellation", 5: "combinators",
        6: "waiting", 7: "executors", 8: "resources", 9: "conveniences"
    ]

    /// "C2 continuations: 8 checks in 0.23 s, passed", what this part of a run found.
    func chapterLine(_ chapter: Int, in duration: Duration) -> String {
        var text =
            "C\(chapter) \(Self.chapterTitles[chapter] ?? "rules"): \(Self.count(checks.count, "check")) in \(Self.short(duration)), "
            + (failures.isEmpty ? "passed" : "\(Self.count(failures.count, "failure")) (\(Self.ids(brokenRules)))")
        if !knownIssues.isEmpty {
            text += ", \(Self.count(knownIssues.count, "known issue")) (\(Self.ids(Self.rules(of: knownIssues.map(\.rule)))))"
        }
        if !notRun.isEmpty { text += ", \(notRun.count) not run (the time limit ran out)" }
        return text
    }
}
