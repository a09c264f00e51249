/// One finding of a hang's diagnosis: its kind (which ranks it), the rule it breaks, what it
/// says, and the tasks it is about (an inferred finding about one of them names it).
struct HangFinding {
    let kind: HangFindingKind
    let rule: Rule
    var text: String
    var tasks: Set<Int> = []

    /// `findings` in the diagnosis's order: by their kind's rank, each kind in the order found;
    /// the same text once; each inferred finding about a task names the first direct finding
    /// about that task, which explains it.
    static func ranked(_ findings: [HangFinding]) -> [HangFinding] {
        var seen: Set<String> = []
        let unique = findings.filter { seen.insert($0.text).inserted }
        let sorted = unique.enumerated().sorted { ($0.element.kind.rank, $0.offset) < ($1.element.kind.rank, $1.offset) }.map(\.element)
        return sorted.map { finding in
            guard !finding.kind.isDirect,
                let cause = sorted.first(where: { $0.kind.isDirect && !$0.tasks.isDisjoint(with: finding.tasks) })
            else { return finding }
            var explained = finding
            explained.text += " (explained by the \(cause.rule) finding above: \(cause.kind.name))"
            return explained
        }
    }

    /// The finding as the report tells it, once the watchdog gave the phase up after it ran `limit`.
    func finding(after limit: Duration) -> Finding {
        Finding(rule, text, expected: kind.expected, observed: "seen when the watchdog gave up after \(limit)")
    }
}
