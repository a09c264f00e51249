/// A version of the contract (docs/CONTRACT.md, "Versions"). The contract grows by rules: a
/// version adds rules, or decisions that ask more of existing ones, and never renumbers or drops
/// a rule; every rule belongs to the version that introduced it, and names the versions that
/// revised it. A backend says which version it was written against
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
    /// No new rule; decisions that ask more of existing ones: C2.6 (`then` waits for a task its
    /// body returns), C4.3 (a start once a handler of the token ran never runs the body), C4.6
    /// (every `cancel(after:)` deadline stands; a linked source keeps its parent registrations),
    /// C8.2 (every object the contract makes is freed), C9.8 (`runMainLoop(until:)` and
    /// `runMainLoop()` on every backend) and C9.11 (a work group's exact count).
    public static let v1_3 = ContractVersion(1, 3)
    /// No new rule; decisions that ask more of existing ones: a combinator (C5.1, C5.2, C5.3,
    /// and so `whenAll(a, b, ...)`) and a task-returning form (C2.6) take any conformer of
    /// `AsyncTask`, another backend's task or a user's own, with the outcomes, order and fail-fast
    /// they give the backend's own tasks.
    public static let v1_4 = ContractVersion(1, 4)

    /// The contract as of this TaskAPI.
    public static let current = v1_4
    /// Every version, oldest first.
    public static let all: [ContractVersion] = [.v1_0, .v1_1, .v1_2, .v1_3, .v1_4]

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
