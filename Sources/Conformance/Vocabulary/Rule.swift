import TaskAPI

/// A rule of docs/CONTRACT.md, by id: the vocabulary of every failure message.
public enum Rule: String, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    case c1_1 = "C1.1", c1_2 = "C1.2", c1_3 = "C1.3", c1_4 = "C1.4", c1_5 = "C1.5"
    case c2_1 = "C2.1", c2_2 = "C2.2", c2_3 = "C2.3", c2_4 = "C2.4", c2_5 = "C2.5", c2_6 = "C2.6", c2_7 = "C2.7"
    case c3_1 = "C3.1", c3_2 = "C3.2", c3_3 = "C3.3"
    case c4_1 = "C4.1", c4_2 = "C4.2", c4_3 = "C4.3", c4_4 = "C4.4", c4_5 = "C4.5", c4_6 = "C4.6", c4_7 = "C4.7"
    case c5_1 = "C5.1", c5_2 = "C5.2", c5_3 = "C5.3", c5_4 = "C5.4", c5_5 = "C5.5"
    case c6_1 = "C6.1", c6_2 = "C6.2", c6_3 = "C6.3", c6_4 = "C6.4", c6_5 = "C6.5"
    case c7_1 = "C7.1", c7_2 = "C7.2", c7_3 = "C7.3"
    case c8_1 = "C8.1", c8_2 = "C8.2", c8_3 = "C8.3"
    case c9_1 = "C9.1", c9_2 = "C9.2", c9_3 = "C9.3", c9_4 = "C9.4", c9_5 = "C9.5", c9_6 = "C9.6", c9_7 = "C9.7", c9_8 = "C9.8"
    case c9_9 = "C9.9", c9_10 = "C9.10", c9_11 = "C9.11"

    public var description: String { rawValue }

    /// The contract version that introduced the rule (docs/CONTRACT.md, "Versions"): a backend
    /// that targets an earlier one (`TaskBackend.targetContractVersion`) has not been upgraded to it.
    public var introducedIn: ContractVersion {
        switch self {
        case .c1_1, .c1_2, .c1_3, .c1_4, .c1_5, .c2_1, .c2_2, .c2_3, .c2_4, .c2_5, .c2_6, .c2_7, .c3_1, .c3_2, .c3_3,
            .c4_1, .c4_2, .c4_3, .c4_4, .c4_5, .c4_6, .c4_7, .c5_1, .c5_2, .c5_3, .c5_4, .c5_5,
            .c6_1, .c6_2, .c6_3, .c6_4, .c6_5, .c7_1, .c7_2, .c7_3, .c8_1, .c8_2:
            return .v1_0
        case .c8_3, .c9_1, .c9_2, .c9_3, .c9_4, .c9_5, .c9_6, .c9_7, .c9_8, .c9_9:
            return .v1_1
        case .c9_10, .c9_11:
            return .v1_2
        }
    }

    /// The contract versions after `introducedIn` whose decisions ask more of the rule, oldest
    /// first (docs/CONTRACT.md, "Versions"); empty for a rule unchanged since it came.
    public var revisedIn: [ContractVersion] { Self.revisions[self] ?? [] }

    /// The last version that introduced or revised the rule: a backend that targets an earlier
    /// one was not written for what the rule asks now.
    public var lastChangedIn: ContractVersion { revisedIn.last ?? introducedIn }

    /// The rules a later version revised. A table rather than a switch: most rules were never
    /// revised, and a rule added later has no revision to name.
    private static let revisions: [Rule: [ContractVersion]] = [
        .c2_6: [.v1_3, .v1_4], .c4_3: [.v1_3], .c4_6: [.v1_3], .c5_1: [.v1_4], .c5_2: [.v1_4], .c5_3: [.v1_4], .c8_2: [.v1_3],
        .c9_8: [.v1_3], .c9_11: [.v1_3]
    ]

    public static func < (lhs: Rule, rhs: Rule) -> Bool {
        lhs.sortKey.lexicographicallyPrecedes(rhs.sortKey)
    }

    private var sortKey: [Int] { rawValue.dropFirst().split(separator: ".").compactMap { Int($0) } }
}
