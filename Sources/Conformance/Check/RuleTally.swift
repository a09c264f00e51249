/// Rules tested, each with how many checks ran: what the coverage table counts.
struct RuleTally: ExpressibleByArrayLiteral, Sequence {
    private(set) var counts: [Rule: Int] = [:]

    init(arrayLiteral rules: Rule...) { for rule in rules { insert(rule) } }

    var rules: Set<Rule> { Set(counts.keys) }

    mutating func insert(_ rule: Rule) { counts[rule, default: 0] += 1 }
    mutating func formUnion(_ rules: [Rule]) { for rule in rules { insert(rule) } }
    mutating func merge(_ other: RuleTally) { counts.merge(other.counts, uniquingKeysWith: +) }
    func contains(_ rule: Rule) -> Bool { counts[rule] != nil }
    func makeIterator() -> Set<Rule>.Iterator { rules.makeIterator() }
}
