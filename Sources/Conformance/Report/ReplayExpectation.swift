/// What a replay must break to reproduce its failure (`ConformanceConfiguration.replayExpectedRules`).
struct ReplayExpectation {
    /// Empty: any finding.
    let rules: [Rule]

    func reproduced(by result: ProgramResult) -> Bool {
        // A hang's further findings count: a stress replay may rank the same hang's findings
        // otherwise, and the rule is broken all the same.
        rules.isEmpty ? !result.findings.isEmpty : result.findings.contains { !Set($0.rules).isDisjoint(with: rules) }
    }

    /// The report's note on a replay that ran `attempts` times and ended with `result`.
    func note(_ result: ProgramResult, attempts: Int, limit: Int) -> String {
        let wanted = rules.isEmpty ? "a failure" : rules.map(\.rawValue).joined(separator: " or ")
        if reproduced(by: result) { return "reproduced \(wanted) at run \(attempts) of at most \(limit)" }
        let others = Set(result.findings.map(\.rule)).sorted().map(\.rawValue).joined(separator: " ")
        return "not reproducible: \(attempts) run\(attempts == 1 ? "" : "s") "
            + (rules.isEmpty ? "found nothing" : "never broke \(wanted) (what the replayed failure broke)")
            + (others.isEmpty ? "" : "; the last broke \(others) instead, reported as failures of their own")
            + (result.abandoned ? "; the last run hung and was abandoned" : "")
            + (result.notReproducible.isEmpty
                ? ""
                : "; its schedule is not exact (work from outside the harness), so run the line again "
                    + "or raise CONFORMANCE_REPLAY_ATTEMPTS, or replay it in stress mode (CONFORMANCE_MODE=stress)")
    }
}
