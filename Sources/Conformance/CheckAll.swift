import Foundation
import TaskAPI

extension Conformance {
    /// The one call that checks a backend against the whole contract: the rule suite
    /// (`RuleSuite.checks`, hand-written checks of each rule), then `check`'s resource checks
    /// (C2.7, C8.2) and generated programs. The report's `passed` covers all three; its `issues`
    /// are what a test framework adapter records.
    ///
    ///     let report = Conformance.checkAll(MyBackend(), configuration: .fromEnvironment())
    ///     for issue in report.issues { ... record issue.message at issue.location ... }
    ///
    /// A replay (`CONFORMANCE_REPLAY`, a seed) runs programs only: the rule suite has no seed.
    public static func checkAll(
        _ backend: any TaskBackend,
        configuration: ConformanceConfiguration = .fromEnvironment(),
        rules: [RuleCheck] = RuleSuite.checks,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> ConformanceReport {
        checkAll(
            makeBackend: { backend }, configuration: configuration, rules: rules,
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// The one call with a fresh backend for the rule suite, for each generated program and for
    /// each shrink candidate (see `check(makeBackend:configuration:)`): no state a backend keeps
    /// crosses from one program to the next, and a replay line meets the backend as it was.
    public static func checkAll(
        makeBackend: @escaping @Sendable () -> any TaskBackend,
        configuration: ConformanceConfiguration = .fromEnvironment(),
        rules: [RuleCheck] = RuleSuite.checks,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> ConformanceReport {
        var configuration = configuration
        configuration.deadline = configuration.deadline ?? Uptime.now + configuration.effectiveTimeLimit
        let suite: RuleSuiteReport? =
            configuration.runsRuleSuite
            ? RuleSuite.run(
                makeBackend(), checks: rules, configuration: configuration,
                fileID: fileID, filePath: filePath, line: line, column: column) : nil
        if let suite { configuration.output(suite.description) }
        var report = check(
            makeBackend: makeBackend, configuration: configuration,
            fileID: fileID, filePath: filePath, line: line, column: column)
        let programsLine = report.contractVersionLine
        report.ruleSuite = suite
        // The rule suite's failures may add rules newer than the backend's target to the line
        // `check` printed.
        if let line = report.contractVersionLine, line != programsLine { configuration.output("conformance [\(report.backend)]" + line) }
        return report
    }

    /// The same, from async code: synchronous work runs on threads of its own, never blocking a
    /// thread of Swift's cooperative pool. Use this one from async tests.
    public static func checkAll(
        _ backend: any TaskBackend,
        configuration: ConformanceConfiguration = .fromEnvironment(),
        rules: [RuleCheck] = RuleSuite.checks,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) async -> ConformanceReport {
        await checkAll(
            makeBackend: { backend }, configuration: configuration, rules: rules,
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// `checkAll(makeBackend:configuration:rules:)` from async code.
    public static func checkAll(
        makeBackend: @escaping @Sendable () -> any TaskBackend,
        configuration: ConformanceConfiguration = .fromEnvironment(),
        rules: [RuleCheck] = RuleSuite.checks,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) async -> ConformanceReport {
        await onOwnThread {
            checkAll(
                makeBackend: makeBackend, configuration: configuration, rules: rules,
                fileID: fileID, filePath: filePath, line: line, column: column)
        }
    }
}

extension ConformanceConfiguration {
    /// Whether `checkAll` runs the rule suite: not for a replay (the suite has no seed, nor a
    /// program file), nor when the environment did not parse or a setting cannot be used (the
    /// check reports the errors and runs nothing).
    var runsRuleSuite: Bool { replaying == nil && replayProgram == nil && settingErrors.isEmpty }
}

/// One thing a test framework adapter records as a failure: a message, the rule it breaks (nil
/// for an error of the run itself), and where to point (nil: the adapter's own call site).
public struct ConformanceIssue: Sendable, CustomStringConvertible {
    public let rule: String?
    public let message: String
    public let location: CallSite?

    public var description: String { message }
}

extension ConformanceReport {
    /// Every failure and error of the report as issues, for an adapter to record: errors of the
    /// run (at the adapter's call site), failing programs (at the line that called the check),
    /// failing rule checks (at the failing expectation inside the suite). Known issues are not
    /// included (`knownIssues`).
    public var issues: [ConformanceIssue] {
        errors.map { ConformanceIssue(rule: nil, message: "conformance [\(backend)]: \($0)", location: nil) }
            + failures.map { ConformanceIssue(rule: $0.rule.rawValue, message: $0.description, location: $0.callSite) }
            + (ruleSuite?.issues ?? [])
    }

    /// The failures of the rules listed in `ConformanceConfiguration.knownIssues`, of programs and
    /// of the rule suite alike, for an adapter to record as known issues (never as failures).
    public var knownIssuesToRecord: [ConformanceIssue] {
        knownIssues.map { ConformanceIssue(rule: $0.rule.rawValue, message: $0.description, location: $0.callSite) }
            + (ruleSuite?.knownIssues.map(\.issue) ?? [])
    }
}

extension RuleSuiteReport {
    /// The failures as issues, at the failing expectation inside the suite, and the error of a
    /// suite cut short by the time limit (at the adapter's call).
    public var issues: [ConformanceIssue] {
        (notRunError.map { [ConformanceIssue(rule: nil, message: "rule suite [\(backend)]: \($0)", location: nil)] } ?? [])
            + failures.map(\.issue)
    }
}

extension RuleFailure {
    /// This failure as an issue, at the failing expectation inside the suite.
    public var issue: ConformanceIssue { ConformanceIssue(rule: rule.rawValue, message: description, location: location) }
}
