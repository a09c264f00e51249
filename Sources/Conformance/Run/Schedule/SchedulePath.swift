/// One schedule of a bounded-exhaustive exploration (`ScheduleStrategy.exhaustive(preemptions:)`),
/// named by its choices: at each decision listed, the candidate picked; every other decision
/// takes the default (the seat or driver that just ran, if it may go on; else the first
/// candidate in key order). Decisions are numbered from 0 in the order the run makes them,
/// counting only those with two candidates or more; a candidate is its index in key order.
///
/// Its text (`p4:1,9:0`: decision 4 picks candidate 1, decision 9 candidate 0; `p` alone: every
/// decision the default) is what a failure's mode and replay line carry, e.g.
/// `CONFORMANCE_MODE=controlled-exhaustive2@p4:1,9:0`: the run makes exactly those choices again.
public struct SchedulePath: Sendable, Hashable, CustomStringConvertible {
    /// A decision that does not take the default.
    public struct Choice: Sendable, Hashable {
        /// The decision's number in the run (0 and up).
        public let decision: Int
        /// The candidate picked, by its index in key order.
        public let candidate: Int

        public init(decision: Int, candidate: Int) {
            self.decision = decision
            self.candidate = candidate
        }
    }

    /// The choices, by increasing decision.
    public let choices: [Choice]

    /// `choices` must name increasing decisions, each 0 or more, with candidates 0 or more;
    /// `nil` otherwise.
    public init?(choices: [Choice]) {
        guard choices.allSatisfy({ $0.decision >= 0 && $0.candidate >= 0 }),
            zip(choices, choices.dropFirst()).allSatisfy({ $0.decision < $1.decision })
        else { return nil }
        self.choices = choices
    }

    /// Every decision the default: the first schedule of an exploration.
    public static let defaults = SchedulePath(checked: [])

    private init(checked choices: [Choice]) {
        self.choices = choices
    }

    /// `p`, then `decision:candidate` pairs separated by commas.
    public init?(_ text: String) {
        guard text.first == "p" else { return nil }
        var choices: [Choice] = []
        let pairs = text == "p" ? [] : text.dropFirst().split(separator: ",", omittingEmptySubsequences: false)
        for pair in pairs {
            let parts = pair.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let decision = Int(parts[0]), let candidate = Int(parts[1]) else { return nil }
            choices.append(Choice(decision: decision, candidate: candidate))
        }
        self.init(choices: choices)
    }

    public var description: String {
        "p" + choices.map { "\($0.decision):\($0.candidate)" }.joined(separator: ",")
    }

    /// The forced candidate of each listed decision.
    var forced: [Int: Int] {
        Dictionary(uniqueKeysWithValues: choices.map { ($0.decision, $0.candidate) })
    }
}
