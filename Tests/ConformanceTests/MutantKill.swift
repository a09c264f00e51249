import Conformance
import Testing

/// A mutant killed as both mutant suites count a kill (`MutantTests`, `ProductionMutantTests`): a
/// failing program reported breaking one of the rules of the mutant's row, among every rule it
/// was reported breaking (a hang's further findings included, `ConformanceFailure.rules`), not
/// only the first. The first rule reported is kept, and drift from the row is told apart.
struct MutantKill {
    /// The first failure of the run that broke a rule of the row.
    let failure: ConformanceFailure
    /// The first rule of `failure` that the row lists: the rule the mutant was killed under.
    let found: Rule
    /// The run's first failure, the one a user reads as the cause.
    let first: ConformanceFailure

    /// The kill `report` shows for a mutant whose row is `expected`; nil if no failure of the
    /// run broke a rule of the row (the mutant survived, or was seen breaking other rules only).
    init?(_ report: ConformanceReport, expected: Set<Rule>) {
        guard let failure = report.failures.first(where: { !expected.isDisjoint(with: $0.rules) }),
            let found = failure.rules.first(where: { expected.contains($0) })
        else { return nil }
        self.failure = failure
        self.found = found
        first = report.failures[0]
    }

    /// Whether the run's first reported rule is one the row does not list.
    func drifted(from expected: Set<Rule>) -> Bool { !expected.contains(first.rule) }

    /// `found`, and the first rule reported when it is another: "C7.2", "C7.2 (first reported: C2.1)".
    var rules: String { "\(found)" + (found == first.rule ? "" : " (first reported: \(first.rule))") }

    /// Tells a kill whose first reported rule its row does not list, as a known issue with the
    /// seed and the replay line (not a failure): a true finding (the row's rule is among what the
    /// harness told), yet the harness's first finding, the one a user reads as the cause, drifted
    /// from the row (a new program mix, a ranking change), so that a maintainer sees it without
    /// CI failing on a true finding listed second. Nothing when the first rule is in the row.
    func recordDrift(of mutant: String, expected: Set<Rule>) {
        guard drifted(from: expected) else { return }
        let note =
            "rule drift: mutant \(mutant) was first reported as \(first.rule), which its row "
            + "\(expected.sorted().map(\.rawValue)) does not list; its row's \(found) was reported too "
            + "(seed \(first.seed), \(first.mode)): judge whether the row or the ranking should change; replay: \(first.replay)"
        print(note)
        withKnownIssue("the first finding is not in the mutant's row") { Issue.record(Comment(rawValue: note)) }
    }
}
