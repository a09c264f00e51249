/// A version of the contract (docs/CONTRACT.md, "Versions"). The contract grows by rules: a
/// version adds rules, never renumbers or drops one, and every rule belongs to the version that
/// introduced it. A backend says which version it was written against
/// (`TaskBackend.targetContractVersion`); a checker then tells the failures of rules that came
/// later (what an upgrade asks of the backend) from those of the rules it targets (its bugs).
public struct ContractVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let major: Int
    public let minor: Int

    public init(_ major: Int, _ minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// C1.1 to C8.2.
    public static let v1_0 = ContractVersion(1, 0)
    /// C8.3 (a released source fails its task `abandoned`) and chapter C9 to C9.9 (conveniences
    /// and lifecycles).
    public static let v1_1 = ContractVersion(1, 1)
    /// C9.10 (executors, main and pinned actors, as types of their own) and C9.11 (no default
    /// that blocks).
    public static let v1_2 = ContractVersion(1, 2)

    /// The contract as of this TaskAPI.
    public static let current = v1_2
    /// Every version, oldest first.
    public static let all: [ContractVersion] = [.v1_0, .v1_1, .v1_2]

    /// `1.2`, as docs/CONTRACT.md writes it.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let major = Int(parts[0]), let minor = Int(parts[1]) else { return nil }
        self.init(major, minor)
    }

    public var description: String { "\(major).\(minor)" }

    public static func < (lhs: ContractVersion, rhs: ContractVersion) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }
}
